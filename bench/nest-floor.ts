/*
 * The floor of the framework, for bench/http.ts: a Nest application on Express with one route,
 * `GET /health` answering `{"status":"ok"}`, and nothing else (no guard, pipe, interceptor,
 * filter or logging). Between it and the bare `node:http` server lies what the framework costs;
 * between it and agentline's own GET /health, what agentline adds. Prints `listening <port>`.
 */
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { AddressInfo } from 'node:net';

@Controller()
class HealthController {
  @Get('health')
  health(): { status: string } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [HealthController] })
class FloorModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(FloorModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.stdout.write(`listening ${port}\n`);
  process.on('SIGTERM', () => void app.close());
}

void main();
