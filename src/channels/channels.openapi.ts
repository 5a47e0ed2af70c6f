import { ApiParam } from '@nestjs/swagger';
import { ApiResourceId } from '../common/http/openapi.decorators';

/** The `:id` of a WhatsApp channel in a path, for every module that routes by it. */
export const ApiWhatsappChannelId = () =>
  ApiResourceId(
    'WhatsApp channel',
    '`data.id` in the answer of POST /v1/channels/whatsapp, or of an item of GET /v1/channels/whatsapp',
  );

/** The `:id` of a Messanger channel in a path. */
export const ApiMessangerChannelId = () =>
  ApiResourceId(
    'Messanger channel',
    '`data.id` in the answer of POST /v1/channels/messanger, or of an item of GET /v1/channels/messanger',
  );

/** The `:phone` of an opt-out. */
export const ApiPhoneParam = () =>
  ApiParam({
    name: 'phone',
    description:
      'The number, E.164 ("+" optional), or the business-scoped user id (BSUID) of a WhatsApp user whose phone Meta withholds.',
    example: '+34612345678',
  });
