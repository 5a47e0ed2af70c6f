import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { AppLogger, createLoggers, Loggers } from './app-logger';

/** The process's loggers: AppLogger for `new Logger(...)`, LOGGERS for the access log. */
export const LOGGERS = Symbol('LOGGERS');

@Global()
@Module({
  providers: [
    {
      provide: LOGGERS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => createLoggers(config),
    },
    {
      provide: AppLogger,
      inject: [LOGGERS],
      useFactory: (loggers: Loggers) => new AppLogger(loggers.app),
    },
  ],
  exports: [LOGGERS, AppLogger],
})
export class LoggingModule {}
