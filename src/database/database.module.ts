import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { dataSourceOptions, openDataSource } from './data-source';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config),
        // PostgreSQL may still be starting (docker compose); a locked embedded directory will not free itself.
        retryAttempts: config.databaseUrl ? 5 : 0,
        retryDelay: 2000,
      }),
      dataSourceFactory: async (options) => openDataSource(options!),
    }),
  ],
})
export class DatabaseModule {}
