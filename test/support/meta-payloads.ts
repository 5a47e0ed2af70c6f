/**
 * Meta webhook payloads in Meta's DOCUMENTED shapes, for tests (see meta-payloads.md for notes).
 *
 * WhatsApp Cloud API: complete `whatsapp_business_account` notification bodies, one message or status each.
 * Messenger: complete `page` notification bodies. Graph answers: send-message and GET /{media-id}.
 * Each export's trailing comment names its source: a developers.facebook.com URL (Meta's own example
 * or syntax), a library's test data as `owner/repo path`, "built from the field table at <url>" where
 * Meta gives fields but no example, or "CONSTRUCTED" where no example exists anywhere.
 *
 * Common ids (Meta's own example values): WABA 102290129340398, business number 15550783881,
 * phone_number_id 106540352242922, user 16505551234, BSUID US.13491208655302741918.
 */

/** A JSON body as Meta sends or answers it. */
export type MetaPayload = Record<string, unknown>;

/** Text message. */
export const waText: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'text',
                text: {
                  body: 'Does it come in another color?',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages (incoming messages example, values verbatim)

/** Text reply: context.from is the BUSINESS number, context.id the wamid replied to. */
export const waTextReply: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
                type: 'text',
                text: {
                  body: 'Yes, please',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "reply" (shape); values aligned with https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages

/** Forwarded text: context carries only forwarded: true (no from/id). */
export const waTextForwarded: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  forwarded: true,
                },
                type: 'text',
                text: {
                  body: 'forwarded text',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "forwarded"

/** Text forwarded many times: context.frequently_forwarded: true. */
export const waTextFrequentlyForwarded: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  frequently_forwarded: true,
                },
                type: 'text',
                text: {
                  body: 'text forwarded many times',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "forwarded_many_times"

/** Image with caption; media is referenced by id (+ sha256, mime_type), no URL. */
export const waImage: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'image',
                image: {
                  caption: 'This is a caption',
                  mime_type: 'image/jpeg',
                  sha256: '81d3bd8a8db4868c9520ed47186e8b7c5789e61ff79f7f834be6950b808a90d3',
                  id: '2754859441498128',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // sendzen.io copy of Meta payload example (image values) + https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/image

/** Video with caption. */
export const waVideo: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'video',
                video: {
                  caption: 'caption',
                  mime_type: 'video/mp4',
                  sha256: 'Jh+2ij6PzUv/J2y+grrtegr/ZMzRxkEPwc24Oyib4s03w9Jc=',
                  id: '765756756',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "video" (context.forwarded dropped)

/** Audio file (voice: false). */
export const waAudio: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'audio',
                audio: {
                  mime_type: 'audio/ogg; codecs=opus',
                  sha256: 'E3dxS/PdYZE7ppA3pQ4mpCFaXBJ8pX4SRN/dsfvds/iPGA=',
                  id: '1234567890987654321',
                  voice: false,
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "audio" (context.forwarded dropped)

/** Voice note: type audio with audio.voice: true. */
export const waVoice: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'audio',
                audio: {
                  mime_type: 'audio/ogg; codecs=opus',
                  sha256: 'm04pFf2ERdaopTyFkGPA0+bX3i+YY2dYgVFwOgDLSDI=',
                  id: '1234567890987654321',
                  voice: true,
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "voice"

/** Document with filename and caption. */
export const waDocument: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'document',
                document: {
                  caption: 'caption',
                  filename: 'filename.pdf',
                  mime_type: 'application/pdf',
                  sha256: 'grwfwe/ZPx0wAbdfbdeFUNItPZ0RylL8gGUvdt3YFqc18SY=',
                  id: '1234567890987654321',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "document" (context.forwarded dropped)

/** Animated sticker (webp, animated: true). */
export const waStickerAnimated: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'sticker',
                sticker: {
                  mime_type: 'image/webp',
                  sha256: 'HcwyCKrTKXHk0a00ms4HWIA76GY0Du6q4Z/iuwevw=',
                  id: '1234567890987654321',
                  animated: true,
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "animated_sticker"

/** Chosen location: latitude/longitude are NUMBERS; name/address/url present. */
export const waLocation: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'location',
                location: {
                  latitude: 37.4611978,
                  longitude: -122.2164385,
                  name: 'Facebook HQ',
                  address: '1 Hacker Way, Menlo Park, CA 94025',
                  url: 'https://maps.google.com/?cid=2000000000000000000',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "chosen_location" (context.forwarded dropped)

/** Shared contact card with every documented sub-object (addresses, birthday, emails, name, org, phones, urls). */
export const waContacts: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'contacts',
                contacts: [
                  {
                    addresses: [
                      {
                        city: 'Menlo Park',
                        country: 'United States',
                        country_code: 'us',
                        state: 'CA',
                        street: '1 Hacker Way',
                        type: 'WORK',
                        zip: '94025',
                      },
                    ],
                    birthday: '1999-01-23',
                    emails: [
                      {
                        email: 'bjohnson@example.com',
                        type: 'WORK',
                      },
                    ],
                    name: {
                      formatted_name: 'Barbara J. Johnson',
                      first_name: 'Barbara',
                      last_name: 'Johnson',
                      middle_name: 'Joana',
                      suffix: 'Esq.',
                      prefix: 'Dr.',
                    },
                    org: {
                      company: 'Example, Inc.',
                      department: 'Sales',
                      title: 'Manager',
                    },
                    phones: [
                      {
                        phone: '+1 (940) 555-1234',
                        wa_id: '19405551234',
                        type: 'HOME',
                      },
                      {
                        phone: '+1 (650) 555-1234',
                        type: 'WORK',
                      },
                    ],
                    urls: [
                      {
                        url: 'https://www.example.com',
                        type: 'WORK',
                      },
                    ],
                  },
                ],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // built from the field table at https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/contacts (values illustrative)

/** Interactive reply button tapped. */
export const waButtonReply: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
                type: 'interactive',
                interactive: {
                  type: 'button_reply',
                  button_reply: {
                    id: 'callback_data',
                    title: 'title',
                  },
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/callback_button.json "button"

/** Interactive list row chosen (with description). */
export const waListReply: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
                type: 'interactive',
                interactive: {
                  type: 'list_reply',
                  list_reply: {
                    id: 'callback_data',
                    title: 'title',
                    description: 'description',
                  },
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/callback_selection.json "description"

/** Flow completed: nfm_reply.response_json is a JSON STRING, body "Sent", name "flow". */
export const waFlowReply: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
                type: 'interactive',
                interactive: {
                  type: 'nfm_reply',
                  nfm_reply: {
                    response_json:
                      '{"comment_text":"Comment Text","delivery_rating":"4","flow_token":"AQAAAAACS5FpgQ_cAAAAAD0QI3s.","purchase_rating":"2","recommend_radio":"0","cs_rating":"0"}',
                    body: 'Sent',
                    name: 'flow',
                  },
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/flow_completion.json "completion"

/** Template quick-reply button: type "button" with button.payload + button.text (not interactive). */
export const waTemplateQuickReply: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                },
                type: 'button',
                button: {
                  payload: 'callback_data',
                  text: 'title',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/callback_button.json "quick_reply"

/** Reaction (timestamp = when the user reacted). */
export const waReaction: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1739321024',
                type: 'reaction',
                reaction: {
                  message_id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                  emoji: '👍',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/reaction (syntax; example values from its placeholder table)

/** Reaction removed: Meta OMITS reaction.emoji (see waReactionRemovedEmptyEmoji for the variant libraries also handle). */
export const waReactionRemoved: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1739321024',
                type: 'reaction',
                reaction: {
                  message_id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/reaction ("omitted if user removes reaction")

/** Reaction removed with emoji: "" (NOT what Meta documents; pywa tests it as seen in the wild). */
export const waReactionRemovedEmptyEmoji: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1739321024',
                type: 'reaction',
                reaction: {
                  message_id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                  emoji: '',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "unreaction_empty"

/** Order from a catalog: quantity and item_price are NUMBERS; text may be "". */
export const waOrder: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'order',
                order: {
                  catalog_id: '354160437058781',
                  text: '',
                  product_items: [
                    {
                      product_retailer_id: 'HAMBURGER',
                      quantity: 3,
                      item_price: 30,
                      currency: 'ILS',
                    },
                    {
                      product_retailer_id: 'FRENCH_FRIES',
                      quantity: 2,
                      item_price: 35,
                      currency: 'ILS',
                    },
                  ],
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "order"

/** User changed number: NO contacts array; from = OLD number, system.wa_id = NEW number. */
export const waSystemChangedNumber: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1739321024',
                type: 'system',
                system: {
                  body: 'User Sheena Nelson changed from 16505551234 to 12195555358',
                  wa_id: '12195555358',
                  user_id: 'US.24817305912873645029',
                  type: 'user_changed_number',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/system (syntax + example values); user_id added per https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#system-messages-webhooks

/** BSUID changed without a shareable phone number (Aug 2026 replacement for user_id_update). */
export const waSystemChangedUserId: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            messages: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1739321024',
                type: 'system',
                system: {
                  type: 'user_changed_user_id',
                  user_id: 'US.24817305912873645029',
                  previous_user_id: 'US.13491208655302741918',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // built from the Aug 11, 2026 entry of https://developers.facebook.com/documentation/business-messaging/whatsapp/changelog/ and https://developers.facebook.com/documentation/business-messaging/whatsapp/webhooks/reference/messages/system/ (full syntax not seen)

/** Unsupported message: errors[] sits INSIDE the message (code 131051). */
export const waUnsupported: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'unsupported',
                errors: [
                  {
                    code: 131051,
                    title: 'Message type unknown',
                    message: 'Message type unknown',
                    error_data: {
                      details: 'Message type is currently not supported.',
                    },
                  },
                ],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "unsupported"

/** Text that arrived from a click-to-WhatsApp ad: referral sits on the message. */
export const waCtwaReferral: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                referral: {
                  source_url: 'https://fb.me/3cr4Wqqkv',
                  source_id: '120226305854810726',
                  source_type: 'ad',
                  headline: 'Chat with us',
                  body: 'Ask us anything',
                  media_type: 'image',
                  image_url: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/ad-image.jpg',
                  ctwa_clid:
                    'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a',
                },
                type: 'text',
                text: {
                  body: 'Can I get more info about this?',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "referral" (placeholders replaced with illustrative values)

/** User edited a message: type "edit", edit.original_message_id + edit.message (the new content). */
export const waEdit: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'edit',
                edit: {
                  original_message_id:
                    'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                  message: {
                    type: 'image',
                    image: {
                      caption: 'Updated image caption',
                      mime_type: 'image/jpeg',
                      sha256: 'a1b2c3d4e5f6...',
                      id: '1234567890',
                    },
                  },
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/edited_message.json "image" (its inner context dropped; Meta inbound-edit reference not found, see .md)

/** User deleted ("revoked") a message: type "revoke", revoke.original_message_id. */
export const waRevoke: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'revoke',
                revoke: {
                  original_message_id:
                    'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/deleted_message.json "revoke" (Meta inbound-revoke reference not found; see .md)

/** User without username: phone (wa_id/from) AND BSUID (user_id/from_user_id). */
export const waBsuidWithPhone: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
                user_id: 'US.13491208655302741918',
              },
            ],
            messages: [
              {
                from: '16505551234',
                from_user_id: 'US.13491208655302741918',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'text',
                text: {
                  body: 'Does it come in another color?',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#incoming-messages-webhooks (syntax; user has no username so wa_id/from stay)

/** Username user, phone withheld: no wa_id, no from; profile.username; parent BSUID fields present. */
export const waBsuidUsernameNoPhone: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                  username: '@realsheenanelson',
                },
                user_id: 'US.13491208655302741918',
                parent_user_id: 'US.ENT.11815799212886844830',
              },
            ],
            messages: [
              {
                from_user_id: 'US.13491208655302741918',
                from_parent_user_id: 'US.ENT.11815799212886844830',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'text',
                text: {
                  body: 'Does it come in another color?',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#incoming-messages-webhooks (example verbatim)

/** Delivered status of a message sent to a PHONE number: contacts[] + recipient_id + recipient_user_id. */
export const waStatusDeliveredBsuid: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Pablo M.',
                  username: '@pablomorales',
                },
                wa_id: '16505551234',
                user_id: 'US.13491208655302741918',
                parent_user_id: 'US.ENT.11815799212886844830',
              },
            ],
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'delivered',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                recipient_user_id: 'US.13491208655302741918',
                recipient_parent_user_id: 'US.ENT.11815799212886844830',
                pricing: {
                  billable: true,
                  pricing_model: 'PMP',
                  type: 'regular',
                  category: 'marketing',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#status-messages-webhooks (example verbatim)

/** Delivered status of a message sent to a BSUID, phone withheld: no wa_id, NO recipient_id. */
export const waStatusDeliveredBsuidNoPhone: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Pablo M.',
                  username: '@pablomorales',
                },
                user_id: 'US.13491208655302741918',
                parent_user_id: 'US.ENT.11815799212886844830',
              },
            ],
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'delivered',
                timestamp: '1750030073',
                recipient_user_id: 'US.13491208655302741918',
                recipient_parent_user_id: 'US.ENT.11815799212886844830',
                pricing: {
                  billable: true,
                  pricing_model: 'PMP',
                  type: 'regular',
                  category: 'marketing',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#status-messages-webhooks (example verbatim)

/** user_id_update notification (field "user_id_update"; value.user_id_update[] with previous/current). */
export const waUserIdUpdate: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            user_id_update: [
              {
                wa_id: '16505551234',
                detail: 'User id for Sheena Nelson has been updated.',
                user_id: {
                  previous: 'US.13491208655302741918',
                  current: 'US.24817305912873645029',
                },
                timestamp: '1750030073',
              },
            ],
          },
          field: 'user_id_update',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#user-id-update-webhooks (May 2026 syntax; Aug 11, 2026 changelog says this field is NOT subscribable, see waSystemChangedUserId)

/** Sent: conversation (with expiration_timestamp) + pricing (CBP). */
export const waStatusSent: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'sent',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                conversation: {
                  id: '7270432eae37498234f4444b35ffc5',
                  origin: {
                    type: 'service',
                  },
                  expiration_timestamp: '1750116473',
                },
                pricing: {
                  billable: true,
                  pricing_model: 'CBP',
                  category: 'service',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message_status.json "sent" (contacts dropped)

/** Delivered: conversation (no expiration_timestamp) + pricing. */
export const waStatusDelivered: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'delivered',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                conversation: {
                  id: '7270432eae37498234f4444b35ffc5',
                  origin: {
                    type: 'service',
                  },
                },
                pricing: {
                  billable: true,
                  pricing_model: 'CBP',
                  category: 'service',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message_status.json "delivered" (contacts dropped)

/** Read: conversation + pricing. */
export const waStatusRead: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'read',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                conversation: {
                  id: '7270432eae37498234f4444b35ffc5',
                  origin: {
                    type: 'service',
                  },
                },
                pricing: {
                  billable: true,
                  pricing_model: 'CBP',
                  category: 'service',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message_status.json "read" (contacts dropped)

/** Failed: 24h window closed. No contacts, no recipient_user_id (sent to phone). */
export const waStatusFailed131047: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'failed',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                errors: [
                  {
                    code: 131047,
                    title: 'Re-engagement message',
                    message: 'Re-engagement message',
                    error_data: {
                      details:
                        'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
                    },
                    href: '/documentation/business-messaging/whatsapp/support/error-codes',
                  },
                ],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#status-messages-webhooks failed example (shape) + error text from https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes

/** Failed: message undeliverable. */
export const waStatusFailed131026: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'failed',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                errors: [
                  {
                    code: 131026,
                    title: 'Message undeliverable',
                    message: 'Message undeliverable',
                    error_data: {
                      details:
                        'Unable to deliver message. Reasons can include: The recipient phone number is not a WhatsApp phone number.',
                    },
                    href: '/documentation/business-messaging/whatsapp/support/error-codes',
                  },
                ],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#status-messages-webhooks failed example (shape) + error text from https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes

/** Failed example Meta prints on the BSUID page (verbatim). */
export const waStatusFailed131049: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            statuses: [
              {
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQUFERjg0NDEzNDdFODU3MUMxMAA=',
                status: 'failed',
                timestamp: '1750030073',
                recipient_id: '16505551234',
                errors: [
                  {
                    code: 131049,
                    title:
                      'This message was not delivered to maintain healthy ecosystem engagement.',
                    message:
                      'This message was not delivered to maintain healthy ecosystem engagement.',
                    error_data: {
                      details:
                        'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
                    },
                    href: '/documentation/business-messaging/whatsapp/support/error-codes',
                  },
                ],
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#status-messages-webhooks

/** Value-level errors[] (no statuses): here 131000 next to an interactive message Meta could not describe. */
export const waValueErrors: MetaPayload = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          value: {
            messaging_product: 'whatsapp',
            metadata: {
              display_phone_number: '15550783881',
              phone_number_id: '106540352242922',
            },
            contacts: [
              {
                profile: {
                  name: 'Sheena Nelson',
                },
                wa_id: '16505551234',
              },
            ],
            messages: [
              {
                context: {
                  from: '15550783881',
                  id: 'wamid.HBgLMTQxMjU1NTA4MjkVAgASGBQzQUNCNjk5RDUwNUZGMUZEM0VBRAA=',
                },
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'interactive',
              },
            ],
            errors: [
              {
                code: 131000,
                title: 'Something went wrong',
                message: 'Something went wrong',
                error_data: {
                  details: 'Unsupported webhook payload',
                },
              },
            ],
          },
          field: 'messages',
        },
      ],
    },
  ],
}; // david-lev/pywa tests/data/updates/message.json "interactive_message_with_err"

/** POST /{phone-number-id}/messages answer (send to a phone number). */
export const graphSendAnswer: MetaPayload = {
  messaging_product: 'whatsapp',
  contacts: [
    {
      input: '+16505551234',
      wa_id: '16505551234',
    },
  ],
  messages: [
    {
      id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA',
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#send-message-response (example verbatim)

/** Send answer with message_status (Marketing Messages API / pacing). */
export const graphSendAnswerAccepted: MetaPayload = {
  messaging_product: 'whatsapp',
  contacts: [
    {
      input: '+16505551234',
      wa_id: '16505551234',
    },
  ],
  messages: [
    {
      id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA',
      message_status: 'accepted',
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#send-marketing-message-response (example verbatim)

/** Send answer when sent to a BSUID: no wa_id, user_id instead. */
export const graphSendAnswerBsuid: MetaPayload = {
  messaging_product: 'whatsapp',
  contacts: [
    {
      input: 'US.13491208655302741918',
      user_id: 'US.13491208655302741918',
    },
  ],
  messages: [
    {
      id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgARGBI1RjQyNUE3NEYxMzAzMzQ5MkEA',
      message_status: 'accepted',
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#send-marketing-message-response (example verbatim)

/** Brazil: input +5541988887924 (with the mobile 9), wa_id 554188887924 (without). */
export const graphSendAnswerBrazil: MetaPayload = {
  messaging_product: 'whatsapp',
  contacts: [
    {
      input: '+5541988887924',
      wa_id: '554188887924',
    },
  ],
  messages: [
    {
      id: 'wamid.HBgMNTU0MTg4ODg3OTI0FQIAERgSMkQ0RkE3QjY0QkM2M0NEMjdCAA==',
    },
  ],
}; // CONSTRUCTED from the documented shape at https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids#send-message-response; no Meta example with differing input/wa_id found

/** GET /{media-id} answer; url is short-lived and needs the access token. file_size is a number here. */
export const graphMediaAnswer: MetaPayload = {
  messaging_product: 'whatsapp',
  url: 'https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=2754859441498128&ext=1749416383&hash=ATuXYZ',
  mime_type: 'image/jpeg',
  sha256: '81d3bd8a8db4868c9520ed47186e8b7c5789e61ff79f7f834be6950b808a90d3',
  file_size: 303833,
  id: '2754859441498128',
}; // built from the field table at https://developers.facebook.com/documentation/business-messaging/whatsapp/cloud-api/reference/media (values illustrative)

/** Text message. */
export const msText: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          message: {
            mid: 'mid.1457764197618:41d102a3e1ae206a38',
            text: 'hello, world!',
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Text Message example, quick_reply removed)

/** Text from a quick-reply tap: message.quick_reply.payload. */
export const msQuickReply: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          message: {
            mid: 'mid.1457764197618:41d102a3e1ae206a38',
            text: 'hello, world!',
            quick_reply: {
              payload: 'DEVELOPER_DEFINED_PAYLOAD',
            },
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Text Message example)

/** Reply: message.reply_to.mid (+ is_self_reply). */
export const msReplyTo: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          message: {
            mid: 'm_1457764197618:41d102a3e1ae206a38',
            text: 'hello, world!',
            reply_to: {
              mid: 'm_1fTq8oLumEyIp3Q2MR-aY7IfLZDamVrALniheU',
              is_self_reply: false,
            },
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Reply Message example)

/** Attachment of type image: payload.url only. */
export const msImage: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1518479195308,
          message: {
            mid: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
            attachments: [
              {
                type: 'image',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/image-attachment',
                },
              },
            ],
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Message with attachment example)

/** Attachment of type video: payload.url only. */
export const msVideo: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1518479195308,
          message: {
            mid: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
            attachments: [
              {
                type: 'video',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/video-attachment',
                },
              },
            ],
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Message with attachment example)

/** Attachment of type audio: payload.url only. */
export const msAudio: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1518479195308,
          message: {
            mid: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
            attachments: [
              {
                type: 'audio',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/audio-attachment',
                },
              },
            ],
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Message with attachment example)

/** Attachment of type file: payload.url only. */
export const msFile: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1518479195308,
          message: {
            mid: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
            attachments: [
              {
                type: 'file',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t1.15752-9/file-attachment',
                },
              },
            ],
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages (Message with attachment example)

/** Sticker during the transition (until Aug 30, 2026): a "sticker" attachment with sticker_id AND the legacy "image" one. */
export const msSticker: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1518479195308,
          message: {
            mid: 'mid.$cAAJdkrCd2ORnva8ErFhjGm0X_Q_c',
            attachments: [
              {
                type: 'sticker',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t39.1997-6/sticker.png',
                  sticker_id: 369239263222822,
                },
              },
              {
                type: 'image',
                payload: {
                  url: 'https://scontent.xx.fbcdn.net/v/t39.1997-6/sticker.png',
                  sticker_id: 369239263222822,
                },
              },
            ],
          },
        },
      ],
    },
  ],
}; // built from the changelog text at https://developers.facebook.com/documentation/business-messaging/messenger-platform/changelog/ (Jun 1, 2026) and https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messages

/** Postback button tap (title, payload, mid). */
export const msPostback: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          postback: {
            mid: 'm_MESSAGE-ID',
            title: 'Postback Button',
            payload: 'DEVELOPER_DEFINED_PAYLOAD',
          },
        },
      ],
    },
  ],
}; // built from the field table at https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_postbacks

/** Get Started via m.me: Meta's example object verbatim (sender.user_ref, STRING timestamp in seconds, referral). */
export const msGetStartedPostback: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            user_ref: 'USER-REF-ID',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: '1527459824',
          postback: {
            mid: 'm_MESSAGE-ID',
            title: 'TITLE-FOR-THE-CTA',
            payload: 'USER-DEFINED-PAYLOAD',
            referral: {
              ref: 'USER-DEFINED-REFERRAL-PARAM',
              source: 'SHORT-URL',
              type: 'OPEN_THREAD',
            },
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_postbacks (example "value" placed in entry[].messaging[])

/** Reaction (action react). */
export const msReaction: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458668856463,
          reaction: {
            reaction: 'love',
            emoji: '❤️',
            action: 'react',
            mid: 'm_1457764197618:41d102a3e1ae206a38',
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-reactions (example; enum placeholders resolved)

/** Reaction removed (action unreact); Meta's example keeps reaction/emoji, providers report they can be absent. */
export const msUnreaction: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458668856463,
          reaction: {
            reaction: 'love',
            emoji: '❤️',
            action: 'unreact',
            mid: 'm_1457764197618:41d102a3e1ae206a38',
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-reactions (example; enum placeholders resolved)

/** Referral into an existing thread via m.me link. */
export const msReferral: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          referral: {
            ref: 'my_ref_data',
            source: 'SHORTLINK',
            type: 'OPEN_THREAD',
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals (m.me Link example)

/** Referral from a click-to-Messenger ad (ad_id, ads_context_data). */
export const msReferralAd: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458692752478,
          referral: {
            ref: 'ad_ref',
            ad_id: '6045246247433',
            source: 'ADS',
            type: 'OPEN_THREAD',
            ads_context_data: {
              ad_title: 'Title of the ad',
              photo_url: 'https://scontent.xx.fbcdn.net/ad-photo.jpg',
              post_id: '682498302938465_1056437187834523',
            },
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals (Ad Referral example)

/** Delivery receipt as Meta documents it: NO timestamp on the event; delivery.mids + watermark. */
export const msDelivery: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          delivery: {
            mids: ['mid.1458668856218:ed81099e15d3f4f233'],
            watermark: 1458668856253,
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-deliveries (example verbatim)

/** Delivery receipt with a timestamp and no mids (mids "may not be present"). */
export const msDeliveryWithTimestamp: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458668856463,
          delivery: {
            watermark: 1458668856253,
          },
        },
      ],
    },
  ],
}; // built from the field table at https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-deliveries

/** Read receipt: read.watermark (has timestamp). */
export const msRead: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '1254459154682919',
          },
          recipient: {
            id: '682498302938465',
          },
          timestamp: 1458668856463,
          read: {
            watermark: 1458668856253,
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-reads (example verbatim)

/** Echo of a message the Page sent: sender is the PAGE, is_echo + app_id (number) + metadata. */
export const msEcho: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1518479195594,
      messaging: [
        {
          sender: {
            id: '682498302938465',
          },
          recipient: {
            id: '1254459154682919',
          },
          timestamp: 1457764197627,
          message: {
            is_echo: true,
            app_id: 1517776481860111,
            metadata: 'DEVELOPER_DEFINED_METADATA_STRING',
            mid: 'mid.1457764197618:41d102a3e1ae206a38',
            text: 'hello, world!',
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-echoes (Example 1; "..." replaced by text)

/** Handover protocol: entry[].standby instead of messaging (an echo observed while another app owns the thread). */
export const msStandbyEcho: MetaPayload = {
  object: 'page',
  entry: [
    {
      id: '682498302938465',
      time: 1570053170926,
      standby: [
        {
          sender: {
            id: '682498302938465',
          },
          recipient: {
            id: '1254459154682919',
          },
          timestamp: 1570053170673,
          message: {
            mid: 'qT7ywaKpO9kkQR7Gv-nM8LIfLZDamVrALniheUYEDdHJXjDXEAyaS1xxONzb2Iv-DFzmTihfWJV012P5pK0AhQ',
            is_echo: true,
          },
        },
      ],
    },
  ],
}; // https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/message-echoes (Example 2, fields shown before the excerpt cut)
