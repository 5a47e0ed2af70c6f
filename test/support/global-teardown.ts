import { REMOVE_TEMPLATE, WithRemoveTemplate } from './global-setup';

/** jest globalTeardown of the e2e project: removes the template globalSetup migrated. */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as WithRemoveTemplate)[REMOVE_TEMPLATE]?.();
}
