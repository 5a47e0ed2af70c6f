/** What other modules may use of the sandbox (docs/sandbox.md). */
export { mountSandbox, SandboxModule } from './sandbox.module';
export { SandboxChatViewModule } from './chat-view/sandbox-chat-view.module';
export { readSandboxConfig, SANDBOX_CONFIG } from './sandbox.config';
export type { SandboxConfig } from './sandbox.config';
export { SandboxConversations } from './sandbox-conversations';
export type {
  SandboxMessage,
  SandboxMessageState,
  SandboxChannelKind,
} from './sandbox-conversations';
export { SandboxMedia } from './sandbox-media';
export { SandboxInbound } from './sandbox-inbound.service';
