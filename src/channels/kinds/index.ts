import type { ChannelKindDescriptor } from './channel-kind';
import { MESSANGER_KIND } from './messanger/messanger.kind';
import { WHATSAPP_KIND } from './whatsapp/whatsapp.kind';

/** Every built-in channel kind; adding one is its folder and one line here (docs/channels.md). */
export const BUILTIN_CHANNEL_KINDS: readonly ChannelKindDescriptor[] = [
  WHATSAPP_KIND,
  MESSANGER_KIND,
];
