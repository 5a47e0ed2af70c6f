import { Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { EventLoopMonitor } from './event-loop-monitor';

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
  ],
  exports: [Clock, EventLoopMonitor],
})
export class CommonModule {}
