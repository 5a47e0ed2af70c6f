import { Module } from '@nestjs/common';
import { ChannelsModule } from '../../channels';
import { SandboxConversations } from '../sandbox-conversations';
import { loadSandboxChatPage, SANDBOX_CHAT_PAGE } from './sandbox-chat-page';
import { SandboxChatEvents } from './sandbox-chat-events';
import { SandboxChatViewController } from './sandbox-chat-view.controller';
import { SandboxChatView } from './sandbox-chat-view.service';

/** The chat view of the Meta sandbox: GET /sandbox and the JSON it reads. */
@Module({
  imports: [ChannelsModule],
  controllers: [SandboxChatViewController],
  providers: [
    SandboxConversations,
    SandboxChatView,
    SandboxChatEvents,
    { provide: SANDBOX_CHAT_PAGE, useFactory: () => loadSandboxChatPage(process.env) },
  ],
  exports: [SandboxConversations],
})
export class SandboxChatViewModule {}
