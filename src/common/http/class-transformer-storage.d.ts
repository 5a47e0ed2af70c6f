/** class-transformer's metadata, which it keeps in this module and types elsewhere. */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
