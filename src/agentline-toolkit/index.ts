/**
 * What the composition root uses of agentline-toolkit (docs/architecture.md); no other module
 * imports it: it sits on top of the scheduler, channels and tools.
 */
export { AgentlineToolkitModule } from './agentline-toolkit.module';
