import { MiddlewareConsumer, Module, NestModule } from '@nestjs/common';
import { ChannelsModule } from '../../channels';
import { SandboxStandInModule } from '../sandbox-stand-in.module';
import { SandboxModule } from '../sandbox.module';
import { SandboxOffCheck } from '../sandbox-off.middleware';
import { SANDBOX_CONFIG, SandboxConfig } from '../sandbox.config';
import { loadSandboxChatPage, SANDBOX_CHAT_PAGE } from './sandbox-chat-page';
import { SandboxChatEvents } from './sandbox-chat-events';
import { SandboxChatViewController } from './sandbox-chat-view.controller';
import { SandboxChatView } from './sandbox-chat-view.service';

/** The chat view of the Meta sandbox: GET /sandbox and the JSON it reads. */
@Module({
  imports: [ChannelsModule, SandboxModule, SandboxStandInModule],
  controllers: [SandboxChatViewController],
  providers: [
    SandboxChatView,
    SandboxChatEvents,
    {
      provide: SANDBOX_CHAT_PAGE,
      inject: [SANDBOX_CONFIG],
      useFactory: (config: SandboxConfig) => loadSandboxChatPage(config.enabled),
    },
  ],
})
export class SandboxChatViewModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(SandboxOffCheck).forRoutes(SandboxChatViewController);
  }
}
