import { Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { ChannelsService } from '../../channels/channels.service';
import { GraphApiClient } from '../../channels/graph-api/graph-api.client';
import { ToolExecutorRegistry } from '../../tools/execution/tool-executor.registry';
import { ToolWorkerPool } from '../../tools/execution/worker-pool/tool-worker.pool';
import { FollowUpsService } from '../follow-ups.service';
import { followUpExecutors } from './follow-up.executors';
import { PREVIEW_SCHEDULE_MODULE } from './preview-schedule.worker';
import { sendWhatsappMessage } from './send-whatsapp-message.executor';

/**
 * The executors of catalog/toolkits/agentline.json, registered into Tools' registry at init:
 * Scheduler depends on Tools, never the other way round. Schedule previews are expanded in a
 * worker thread of its own (their cost grows with how rarely a schedule fires).
 */
@Injectable()
export class AgentlineToolkitRegistrar implements OnModuleInit, OnApplicationShutdown {
  private readonly workers = new ToolWorkerPool(1, [PREVIEW_SCHEDULE_MODULE]);

  constructor(
    private readonly registry: ToolExecutorRegistry,
    private readonly followUps: FollowUpsService,
    private readonly channels: ChannelsService,
    private readonly graph: GraphApiClient,
    private readonly clock: Clock,
  ) {}

  async onModuleInit(): Promise<void> {
    this.registry.register(
      'Agentline.SendWhatsappMessage',
      sendWhatsappMessage(this.channels, this.graph),
    );
    const executors = followUpExecutors(this.followUps, this.clock, this.workers);
    for (const [name, executor] of Object.entries(executors))
      this.registry.register(name, executor);
    await this.workers.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.workers.close();
  }
}
