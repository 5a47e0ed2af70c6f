import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ChannelMessagesService } from '../channels';
import { FollowUpsService, SchedulerWorkers } from '../scheduler';
import { ToolExecutorRegistry } from '../tools';
import { followUpExecutors } from './follow-up.executors';
import { sendMessageExecutors } from './send-message.executors';

/**
 * The executors of catalog/toolkits/agentline.json, registered into Tools' registry at init:
 * this module depends on Tools, Channels and the scheduler; none of them depends on it.
 */
@Injectable()
export class AgentlineToolkitRegistrar implements OnModuleInit {
  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly followUps: FollowUpsService,
    private readonly messages: ChannelMessagesService,
    private readonly clock: Clock,
    private readonly workers: SchedulerWorkers,
  ) {}

  onModuleInit(): void {
    const executors = {
      ...sendMessageExecutors(this.messages),
      ...followUpExecutors(this.followUps, this.clock, this.workers),
    };
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
  }
}
