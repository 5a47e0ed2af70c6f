import { Module } from '@nestjs/common';
import { IdempotencyKeys } from './idempotency-keys';

@Module({ providers: [IdempotencyKeys], exports: [IdempotencyKeys] })
export class IdempotencyModule {}
