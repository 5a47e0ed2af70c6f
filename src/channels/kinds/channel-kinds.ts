import { Inject, Injectable } from '@nestjs/common';
import type { ChannelKind, ChannelTransport } from '../channel-transport';
import { GraphApiClient } from './meta/graph-api.client';
import type { ChannelKindDescriptor } from './channel-kind';

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
    this.kinds.set(descriptor.kind, descriptor);
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
