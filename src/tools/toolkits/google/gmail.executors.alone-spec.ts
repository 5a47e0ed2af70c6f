import { htmlToText } from './gmail.executors';

/** Wall-clock bounds, so in the e2e-alone project (run alone, retried once). */
describe('htmlToText (alone)', () => {
  it.each([
    ['many "<"', '<'.repeat(1_000_000)],
    ['unclosed scripts', '<script>'.repeat(200_000)],
    ['unclosed styles and tags', '<style <a '.repeat(200_000)],
  ])('takes linear time on %s', (_name, html) => {
    // About 0.2 s when linear; the quadratic regular expressions took minutes. The bound leaves
    // room for a machine loaded by other work (it failed CI at 0.6 s under three test workers).
    const started = performance.now();
    htmlToText(html);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
