import { INestApplication, MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import type { Server } from 'node:http';
import { ChannelsModule } from '../channels';
import { SandboxConversations } from './sandbox-conversations';
import { SandboxGraph } from './sandbox-graph';
import { SandboxInboundController } from './sandbox-inbound.controller';
import { SandboxInbound } from './sandbox-inbound.service';
import { SANDBOX_GRAPH_PATH, SandboxLoopback } from './sandbox-loopback';
import { SandboxMedia } from './sandbox-media';
import { SandboxOffCheck } from './sandbox-off.middleware';
import { SandboxStandInModule } from './sandbox-stand-in.module';
import { SandboxStatuses } from './sandbox-statuses';
import { SANDBOX_CONFIG, SandboxConfig } from './sandbox.config';
import { SandboxWebhooks } from './sandbox-webhooks';

/**
 * The built-in Meta sandbox (docs/sandbox.md): the stand-in for Graph, the simulated clients and
 * the conversations they share. Its routes answer 404 unless META_SANDBOX=true.
 */
@Module({
  imports: [SandboxStandInModule, ChannelsModule],
  controllers: [SandboxInboundController],
  providers: [
    SandboxConversations,
    SandboxMedia,
    SandboxWebhooks,
    SandboxStatuses,
    SandboxGraph,
    SandboxInbound,
  ],
  exports: [SandboxConversations, SandboxMedia, SandboxInbound],
})
export class SandboxModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxOffCheck).forRoutes(SandboxInboundController);
  }
}

/**
 * With the sandbox on: the stand-in for Graph under SANDBOX_GRAPH_PATH, a plain handler (Graph
 * answers its own shapes: no token guard, data wrapper, problem details or rate limit), and the
 * server whose address the channels reach it at. Before the body parsers: it reads its own bodies.
 */
export function mountSandbox(app: INestApplication): void {
  if (!app.get<SandboxConfig>(SANDBOX_CONFIG).enabled) return;
  app.get(SandboxLoopback).attach(app.getHttpServer() as Server);
  app.use(SANDBOX_GRAPH_PATH, app.get(SandboxGraph).handle);
}
