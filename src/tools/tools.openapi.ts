import { ApiResourceId } from '../common/http/openapi.decorators';

/** The `:id` of a tool attachment in a path, for the tools and execution controllers. */
export const ApiToolId = () =>
  ApiResourceId(
    'tool',
    '`data.id` in the answer of POST /v1/tools, or of an item of GET /v1/tools',
  );
