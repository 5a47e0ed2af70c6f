import { Module } from '@nestjs/common';
import { ChannelsModule } from '../channels';
import { SchedulerModule } from '../scheduler';
import { ToolsModule } from '../tools';
import { AgentlineToolkitRegistrar } from './agentline-toolkit.registrar';

/** The Agentline toolkit: the one module that depends on Tools, Channels and the scheduler. */
@Module({
  imports: [ToolsModule, ChannelsModule, SchedulerModule],
  providers: [AgentlineToolkitRegistrar],
})
export class AgentlineToolkitModule {}
