import { Clock } from '../../src/common/clock';

/** Time that moves only when a test says so: schedules are tested without sleeping through them. */
export class ManualClock extends Clock {
  constructor(private current: number = Date.now()) {
    super();
  }

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(ms: number): void {
    this.current = ms;
  }
}
