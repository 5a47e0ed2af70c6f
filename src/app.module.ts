import { Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { LoggerModule } from 'nestjs-pino';
import { ChannelsModule } from './channels/channels.module';
import { AuthModule } from './common/auth/auth.module';
import { JwtAuthGuard } from './common/auth/jwt-auth.guard';
import { CommonModule } from './common/common.module';
import { CryptoModule } from './common/crypto/crypto.module';
import { DataWrapperInterceptor } from './common/http/data-wrapper.interceptor';
import { OrganizationThrottlerGuard } from './common/http/organization-throttler.guard';
import { ProblemFilter } from './common/http/problem.filter';
import { StrictValidationPipe } from './common/http/validation';
import { loggerOptions } from './common/logging/logger.options';
import { AppConfig } from './config/app-config';
import { APP_CONFIG, ConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { HealthController } from './health.controller';
import { SchedulerModule } from './scheduler/scheduler.module';
import { ToolsModule } from './tools/tools.module';

@Module({
  imports: [
    ConfigModule,
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => loggerOptions(config),
    }),
    CommonModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [{ ttl: 60_000, limit: Math.max(1, config.rateLimitPerMinute) }],
        skipIf: () => config.rateLimitPerMinute === 0,
      }),
    }),
    CryptoModule,
    DatabaseModule,
    AuthModule,
    ToolsModule,
    ChannelsModule,
    SchedulerModule,
  ],
  controllers: [HealthController],
  providers: [
    // Global, so that a test booting AppModule gets exactly what production runs.
    { provide: APP_GUARD, useClass: JwtAuthGuard },
    { provide: APP_GUARD, useClass: OrganizationThrottlerGuard },
    { provide: APP_PIPE, useClass: StrictValidationPipe },
    { provide: APP_FILTER, useClass: ProblemFilter },
    { provide: APP_INTERCEPTOR, useClass: DataWrapperInterceptor },
  ],
})
export class AppModule {}
