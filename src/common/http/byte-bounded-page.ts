import { FindOptionsWhere, In, Repository } from 'typeorm';

/**
 * A list page stops adding items past about this many bytes of its large columns (as well as at
 * `limit` items), so that no answer grows to tens of megabytes.
 */
export const MAX_PAGE_BYTES = 1024 * 1024;

interface Listable {
  id: string;
  createdAt: Date;
}

/**
 * One page, newest first, of at most `limit` rows and about `budget` bytes as `sizeSql` measures
 * them (always at least one row, so that paging by `offset + items.length` moves on). The sizes
 * are read first, without the rows; only the rows that fit are loaded.
 */
export async function byteBoundedPage<T extends Listable>(
  repository: Repository<T>,
  where: FindOptionsWhere<T>,
  sizeSql: (alias: string) => string,
  { offset, limit, budget = MAX_PAGE_BYTES }: { offset: number; limit: number; budget?: number },
): Promise<{ items: T[]; total: number }> {
  const sizes: Array<{ id: string; bytes: string | number | null }> = await repository
    .createQueryBuilder('row')
    .select('row.id', 'id')
    .addSelect(sizeSql('row'), 'bytes')
    .where(where)
    .orderBy('row.createdAt', 'DESC')
    .addOrderBy('row.id', 'DESC')
    .offset(offset)
    .limit(limit)
    .getRawMany();
  const ids: string[] = [];
  let bytes = 0;
  for (const size of sizes) {
    bytes += Number(size.bytes ?? 0);
    if (ids.length > 0 && bytes > budget) break;
    ids.push(size.id);
  }
  const [rows, total] = await Promise.all([
    ids.length > 0 ? repository.findBy({ ...where, id: In(ids) } as FindOptionsWhere<T>) : [],
    repository.countBy(where),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return { items: ids.flatMap((id) => byId.get(id) ?? []), total };
}
