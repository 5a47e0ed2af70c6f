import { ToolExecutionContext } from '../../execution/tool-executor';
import { changeCase, countGraphemes } from './text.executors';

/** Wall-clock bounds, so in the e2e-alone project (run alone, retried once). */
describe('Text executors (alone)', () => {
  it('count graphemes in linear time: 100,000 characters in well under a second', () => {
    const started = performance.now();
    expect(countGraphemes('hello world. '.repeat(7700))).toBe(100_100);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('change to sentence case in linear time on punctuation and spaces', async () => {
    const started = performance.now();
    await changeCase.execute(
      { text: '. '.repeat(50_000), case: 'sentence' },
      {} as ToolExecutionContext,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
