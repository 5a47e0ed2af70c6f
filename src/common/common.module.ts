import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { EventLoopMonitor } from './event-loop-monitor';
import { HttpShutdown } from './http/http-shutdown';

@Global()
@Module({
  providers: [
    { provide: Clock, useClass: SystemClock },
    // Built by a factory: its options have defaults that Nest would otherwise try to inject.
    {
      provide: EventLoopMonitor,
      useFactory: (clock: Clock) => new EventLoopMonitor(clock),
      inject: [Clock],
    },
    // Closes the HTTP server in bounded time at shutdown.
    HttpShutdown,
  ],
  exports: [Clock, EventLoopMonitor],
})
export class CommonModule {}
