import { attachmentDisposition } from './content-disposition';

describe('attachmentDisposition', () => {
  it('is a bare attachment without a filename', () => {
    expect(attachmentDisposition()).toBe('attachment');
    expect(attachmentDisposition(null)).toBe('attachment');
    expect(attachmentDisposition('   ')).toBe('attachment');
    expect(attachmentDisposition('..')).toBe('attachment');
  });

  it('quotes a plain ASCII name and adds nothing else', () => {
    expect(attachmentDisposition('invoice 2026.pdf')).toBe(
      'attachment; filename="invoice 2026.pdf"',
    );
  });

  it('adds filename* in UTF-8 for any other name, with an ASCII fallback', () => {
    expect(attachmentDisposition('Factura Nº 7 – año.pdf')).toBe(
      `attachment; filename="Factura N_ 7 _ a_o.pdf"; filename*=UTF-8''Factura%20N%C2%BA%207%20%E2%80%93%20a%C3%B1o.pdf`,
    );
    expect(attachmentDisposition('写真.jpg')).toBe(
      `attachment; filename="__.jpg"; filename*=UTF-8''%E5%86%99%E7%9C%9F.jpg`,
    );
  });

  it('cannot be used to end the parameter or the header', () => {
    const header = attachmentDisposition('a"; filename="evil.exe\r\nSet-Cookie: x=1.pdf');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header).toBe(
      `attachment; filename="a_; filename=_evil.exeSet-Cookie: x=1.pdf"; filename*=UTF-8''a%22%3B%20filename%3D%22evil.exeSet-Cookie%3A%20x%3D1.pdf`,
    );
  });

  it('keeps only the last path segment', () => {
    expect(attachmentDisposition('../../etc/passwd')).toBe('attachment; filename="passwd"');
    expect(attachmentDisposition('C:\\Users\\me\\cv.docx')).toBe('attachment; filename="cv.docx"');
  });

  it("escapes the characters RFC 8187 does not allow as they are (' ( ) *)", () => {
    expect(attachmentDisposition("l'été (1)*.txt")).toBe(
      `attachment; filename="l'_t_ (1)*.txt"; filename*=UTF-8''l%27%C3%A9t%C3%A9%20%281%29%2A.txt`,
    );
  });

  it('cuts a very long name, keeping its extension', () => {
    const header = attachmentDisposition(`${'x'.repeat(500)}.pdf`);
    expect(header).toBe(`attachment; filename="${'x'.repeat(196)}.pdf"`);
  });
});
