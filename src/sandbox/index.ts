/** What other modules may use of the sandbox (docs/architecture.md, "Module boundaries"). */
export { SandboxChatViewModule } from './chat-view/sandbox-chat-view.module';
export { SandboxConversations } from './sandbox-conversations';
export type { SandboxMessage, SandboxMessageState } from './sandbox-conversations';
