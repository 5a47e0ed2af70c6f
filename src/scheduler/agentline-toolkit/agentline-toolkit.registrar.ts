import { Injectable, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ChannelsService } from '../../channels/channels.service';
import { GraphApiClient } from '../../channels/graph-api/graph-api.client';
import { ToolExecutorRegistry } from '../../tools/execution/tool-executor.registry';
import { FollowUpsService } from '../follow-ups.service';
import { SchedulerWorkers } from '../scheduler-workers';
import { followUpExecutors } from './follow-up.executors';
import { sendWhatsappMessage } from './send-whatsapp-message.executor';

/**
 * The executors of catalog/toolkits/agentline.json, registered into Tools' registry at init:
 * Scheduler depends on Tools, never the other way round.
 */
@Injectable()
export class AgentlineToolkitRegistrar implements OnModuleInit {
  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly followUps: FollowUpsService,
    private readonly channels: ChannelsService,
    private readonly graph: GraphApiClient,
    private readonly clock: Clock,
    private readonly workers: SchedulerWorkers,
  ) {}

  onModuleInit(): void {
    this.registry.register(
      'Agentline.SendWhatsappMessage',
      sendWhatsappMessage(this.channels, this.graph),
    );
    const executors = followUpExecutors(this.followUps, this.clock, this.workers);
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
  }
}
