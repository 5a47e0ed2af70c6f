import type {
  EntityManager,
  EntityTarget,
  FindOptionsOrder,
  FindOptionsWhere,
  ObjectLiteral,
} from 'typeorm';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination.dto';

/** A page of a list, as every list endpoint answers it inside `data`. */
export interface Page<T> {
  items: T[];
  offset: number;
  total_count: number;
}

/** One page of rows (`offset`, `limit` as the query gave them), with the total that matches. */
export async function findPage<T extends ObjectLiteral>(
  db: EntityManager,
  entity: EntityTarget<T>,
  {
    where,
    order,
  }: { where: FindOptionsWhere<T> | FindOptionsWhere<T>[]; order: FindOptionsOrder<T> },
  query: { offset?: number; limit?: number },
): Promise<Page<T>> {
  const offset = query.offset ?? 0;
  const [items, total] = await db.findAndCount(entity, {
    where,
    order,
    skip: offset,
    take: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return { items, offset, total_count: total };
}
