/** The time source; injected so that tests can move time instead of sleeping through schedules. */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}
