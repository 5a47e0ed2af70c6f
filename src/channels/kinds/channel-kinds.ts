import { Inject, Injectable } from '@nestjs/common';
import type { ChannelKind, ChannelTransport } from '../channel-transport';
import { GraphApiClient } from './meta/graph-api.client';
import type { ChannelKindDescriptor } from './channel-kind';

const SQL_NAME = /^[a-z][a-z0-9_]{0,62}$/;
const KIND = /^[a-z][a-z0-9_]{0,30}$/;
const TYPE = /^[A-Z][A-Za-z0-9]{0,30}$/;

/** The kinds ChannelsModule starts with (src/channels/kinds/index.ts). */
export const CHANNEL_KIND_LIST = Symbol('CHANNEL_KIND_LIST');

/**
 * The channel kinds of this process, and each one's transport (built once). Built-in kinds come
 * from their index; a module may add one with `register` before the application starts (a test
 * registers a kind of its own this way).
 */
@Injectable()
export class ChannelKinds {
  private readonly kinds = new Map<ChannelKind, ChannelKindDescriptor>();
  private readonly transports = new Map<ChannelKind, ChannelTransport>();

  constructor(
    @Inject(CHANNEL_KIND_LIST) builtin: readonly ChannelKindDescriptor[],
    private readonly graph: GraphApiClient,
  ) {
    builtin.forEach((descriptor) => this.register(descriptor));
  }

  register(descriptor: ChannelKindDescriptor): void {
    if (this.kinds.has(descriptor.kind)) {
      throw new Error(`The channel kind ${descriptor.kind} is registered twice.`);
    }
    // Table and column are written into SQL as names; kind and type are stored, and the tables'
    // checks take only these shapes (migration 1764600000000).
    const shapes: [string, RegExp][] = [
      [descriptor.kind, KIND],
      [descriptor.type, TYPE],
      [descriptor.table, SQL_NAME],
      [descriptor.senderIdColumn, SQL_NAME],
    ];
    for (const [name, shape] of shapes) {
      if (!shape.test(name)) {
        throw new Error(
          `The channel kind ${descriptor.kind} names ${name}, not of the shape ${shape}.`,
        );
      }
    }
    this.kinds.set(descriptor.kind, descriptor);
  }

  /** The kind, if registered: a stored row may name one this process does not run. */
  find(kind: ChannelKind): ChannelKindDescriptor | undefined {
    return this.kinds.get(kind);
  }

  all(): readonly ChannelKindDescriptor[] {
    return [...this.kinds.values()];
  }

  /** A kind the code names (stored rows, its own routes): one that is not registered is a bug. */
  get(kind: ChannelKind): ChannelKindDescriptor {
    const descriptor = this.kinds.get(kind);
    if (!descriptor) {
      throw new Error(`The channel kind ${kind} is not registered.`);
    }
    return descriptor;
  }

  transport(kind: ChannelKind): ChannelTransport {
    let transport = this.transports.get(kind);
    if (!transport) {
      transport = this.get(kind).createTransport({ graph: this.graph, env: process.env });
      this.transports.set(kind, transport);
    }
    return transport;
  }
}
