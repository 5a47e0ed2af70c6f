import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { AgentEventsModule, readAgentEventsConfig } from './agent-events';
import { AgentlineToolkitModule } from './agentline-toolkit';
import { ChannelsModule, readChannelsConfig } from './channels';
import { AuthModule } from './common/auth/auth.module';
import { JwtAuthGuard } from './common/auth/jwt-auth.guard';
import { CommonModule } from './common/common.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { RateLimitGuard } from './common/http/rate-limit.guard';
import { ProblemFilter } from './common/http/problem.filter';
import { StrictValidationPipe } from './common/http/validation';
import { LoggingModule } from './common/logging/logging.module';
import { loadConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health';
import { McpServerModule, readMcpServerConfig } from './mcp-server';
import { MetricsModule, readMetricsConfig } from './metrics';
import { ApiResponseInterceptor } from './common/idempotency/api-response.interceptor';
import { IdempotencyModule } from './common/idempotency/idempotency.module';
import { readSchedulerConfig, SchedulerEngine, SchedulerModule } from './scheduler';
import { readToolsConfig, ToolsModule } from './tools';
import { readSandboxConfig, SandboxChatViewModule, SandboxModule } from './sandbox';

/**
 * Every module's configuration, read as the modules will read it at boot: main.ts calls this
 * before Nest starts, so that any bad value stops the service with one line naming it. One line
 * per module that reads its own variables.
 */
export function readConfiguration(env: NodeJS.ProcessEnv = process.env) {
  const app = loadConfig(env);
  const channels = readChannelsConfig(env);
  const scheduler = readSchedulerConfig(env, channels);
  const tools = readToolsConfig(env, app);
  const agentEvents = readAgentEventsConfig(env);
  const metrics = readMetricsConfig(env);
  const mcpServer = readMcpServerConfig(env);
  const sandbox = readSandboxConfig(env);
  return { app, channels, scheduler, tools, agentEvents, metrics, mcpServer, sandbox };
}

@Module({
  imports: [
    ConfigModule,
    LoggingModule,
    MetricsModule,
    CommonModule,
    CryptoModule,
    DatabaseModule,
    AuthModule,
    AgentEventsModule,
    ToolsModule,
    ChannelsModule,
    SchedulerModule,
    AgentlineToolkitModule,
    McpServerModule,
    SandboxModule,
    SandboxChatViewModule,
    HealthModule.register({ imports: [SchedulerModule], ticks: SchedulerEngine }),
    IdempotencyModule,
  ],
  providers: [
    // Global, so that a test booting AppModule gets exactly what production runs.
    { provide: APP_GUARD, useClass: JwtAuthGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_PIPE, useClass: StrictValidationPipe },
    { provide: APP_FILTER, useClass: ProblemFilter },
    // Idempotency around the `{ data }` wrapper, in one interceptor.
    { provide: APP_INTERCEPTOR, useClass: ApiResponseInterceptor },
  ],
})
export class AppModule {}
