import { newMediaId, newMid, newWamid } from './graph-ids';

describe('ids in Meta’s formats', () => {
  it('writes a wamid as Meta does: base64 of a record holding the number', () => {
    const wamid = newWamid('+34 612 345 678');
    expect(wamid).toMatch(/^wamid\.[A-Za-z0-9+/]+=*$/);
    const record = Buffer.from(wamid.slice('wamid.'.length), 'base64');
    expect([...record.subarray(0, 3)]).toEqual([0x1c, 0x18, 11]);
    expect(record.subarray(3, 14).toString()).toBe('34612345678');
    expect(record.subarray(20, 40).toString()).toMatch(/^[0-9A-F]{20}$/);
    expect(newWamid('34612345678')).not.toBe(newWamid('34612345678'));
  });

  it('writes Messenger mids and numeric media ids', () => {
    expect(newMid()).toMatch(/^m_[\w-]{80,}$/);
    // Many: a length outside Graph’s came about once in 700 ids.
    const ids = Array.from({ length: 5_000 }, () => newMediaId());
    for (const id of ids) expect(id).toMatch(/^[1-9]\d{14,15}$/);
    expect(new Set(ids.map((id) => id.length))).toEqual(new Set([15, 16]));
  });
});
