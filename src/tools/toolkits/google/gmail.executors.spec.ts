import { htmlToText } from './gmail.executors';

/** What the Gmail tool did before: right on ordinary HTML, quadratic on hostile HTML. */
const byRegExp = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describe('htmlToText', () => {
  it.each([
    '<p>Hello <b>World</b></p>',
    '<html><head><style>p { color: red }</style></head><body>Hi<br/>there</body></html>',
    '<SCRIPT type="x">alert(1)</Script>Text after',
    'a < b and c > d',
    'no tags at all',
    '<>, <<b>>, <p',
    '<script>never closed <p>still</p>',
    '',
  ])('reads %p as the regular expressions did', (html) => {
    expect(htmlToText(html)).toBe(byRegExp(html));
  });
});
