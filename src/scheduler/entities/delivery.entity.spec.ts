import * as api from '../../channels/messages/delivery.dto';
import { DELIVERY_STATUSES, MESSAGE_TYPES } from './delivery.entity';

// Channels publish the deliveries the scheduler stores: the same statuses and message types, in
// the same order (the OpenAPI enums and the follow-ups' counts list them in it).
describe('DeliveryEntity and the API', () => {
  it('store the statuses the API answers and filters by', () => {
    expect([...DELIVERY_STATUSES]).toEqual([...api.DELIVERY_STATUSES]);
  });

  it('store the message types the API answers', () => {
    expect([...MESSAGE_TYPES]).toEqual([...api.MESSAGE_TYPES]);
  });
});
