import { templateProblems, templateVariables } from './template-checks';
import { type MessageTemplate, templateValueProblems } from './template-message.dto';
import type { CatalogTemplate, TemplateLookup } from './whatsapp-template-catalog';
import {
  CatalogRow,
  ORDER_UPDATE,
  ORDER_UPDATE_SEND,
  SPRING_SALE,
  SPRING_SALE_SEND,
} from '../../../../../test/support/meta-templates';

/** A catalog row as WhatsappTemplateCatalog answers it. */
const catalogTemplate = (row: CatalogRow): CatalogTemplate => ({
  name: row.name,
  language: row.language,
  status: 'APPROVED',
  category: row.category,
  parameterFormat: row.parameter_format,
  components: row.components,
});
const springSale = catalogTemplate(SPRING_SALE);
const orderUpdate = catalogTemplate(ORDER_UPDATE);

const found = (template: CatalogTemplate, status = template.status): TemplateLookup => ({
  catalog: true,
  template: { ...template, status },
  languages: [template.language],
});

const springSaleSend: MessageTemplate = SPRING_SALE_SEND;
const orderUpdateSend: MessageTemplate = ORDER_UPDATE_SEND;

const fields = (lookup: TemplateLookup, template: MessageTemplate) =>
  templateProblems(lookup, template).map((problem) => problem.field);

describe('templateProblems', () => {
  it('lets anything through when the channel has no catalog', () => {
    expect(templateProblems({ catalog: false }, { ...springSaleSend, parameters: ['x'] })).toEqual(
      [],
    );
  });

  it('accepts templates that get exactly what their components need', () => {
    expect(templateProblems(found(springSale), springSaleSend)).toEqual([]);
    expect(templateProblems(found(orderUpdate), orderUpdateSend)).toEqual([]);
    // A quick reply may carry its payload.
    expect(
      templateProblems(found(springSale), {
        ...springSaleSend,
        buttons: [
          ...springSaleSend.buttons!,
          { index: 1, sub_type: 'quick_reply', parameter: 'stop' },
        ],
      }),
    ).toEqual([]);
  });

  it('names the languages the account has when the template is not in the one asked', () => {
    const lookup: TemplateLookup = {
      catalog: true,
      template: undefined,
      languages: ['es', 'pt_BR'],
    };
    expect(templateProblems(lookup, springSaleSend)).toEqual([
      {
        field: 'template.language',
        message: 'template "spring_sale" does not exist in en_US; the account has it in es, pt_BR',
      },
    ]);
  });

  it('says when the account has no template of that name', () => {
    const lookup: TemplateLookup = { catalog: true, template: undefined, languages: [] };
    expect(templateProblems(lookup, springSaleSend)).toEqual([
      {
        field: 'template.name',
        message: `template "spring_sale" does not exist in the channel's WhatsApp Business Account`,
      },
    ]);
  });

  it.each(['PAUSED', 'DISABLED', 'PENDING', 'REJECTED'])(
    'refuses a %s template, saying so',
    (status) => {
      expect(templateProblems(found(springSale, status), springSaleSend)).toEqual([
        {
          field: 'template.name',
          message: `template "spring_sale" (en_US) is ${status}; only APPROVED templates can be sent`,
        },
      ]);
    },
  );

  it('counts positional body parameters against the body variables', () => {
    expect(
      templateProblems(found(orderUpdate), { ...orderUpdateSend, parameters: ['Ana'] }),
    ).toEqual([
      {
        field: 'template.parameters',
        message: "the template's body has 2 variables ({{1}}, {{2}}); 1 parameter given",
      },
    ]);
    expect(fields(found(orderUpdate), { ...orderUpdateSend, parameters: ['a', 'b', 'c'] })).toEqual(
      ['template.parameters'],
    );
  });

  it('matches named parameters exactly, naming the missing and the extra', () => {
    const problems = templateProblems(found(springSale), {
      ...springSaleSend,
      named_parameters: { first_name: 'Ana', discount: '20%' },
    });
    expect(problems).toEqual([
      {
        field: 'template.named_parameters',
        message: "missing offer; not in the template's body: discount",
      },
    ]);
  });

  it('refuses positional parameters for a NAMED template, and named ones for a POSITIONAL one', () => {
    expect(fields(found(springSale), { ...springSaleSend, parameters: ['Ana', 'Sunday'] })).toEqual(
      ['template.parameters'],
    );
    expect(
      fields(found(orderUpdate), { ...orderUpdateSend, named_parameters: { name: 'Ana' } }),
    ).toEqual(['template.named_parameters']);
  });

  it("requires the header's parameter, of the header's format", () => {
    expect(templateProblems(found(springSale), { ...springSaleSend, header: undefined })).toEqual([
      {
        field: 'template.header',
        message: `the template's header is IMAGE: give header { type: "image" } with its media_id or link`,
      },
    ]);
    expect(
      templateProblems(found(springSale), {
        ...springSaleSend,
        header: { type: 'video', media_id: '1013859600285441' },
      }),
    ).toEqual([
      { field: 'template.header.type', message: "the template's header is IMAGE, not video" },
    ]);
    expect(fields(found(orderUpdate), { ...orderUpdateSend, header: undefined })).toEqual([
      'template.header',
    ]);
  });

  it.each([
    ['DOCUMENT', 'document', { type: 'document', media_id: '1013859600285441' }],
    ['VIDEO', 'video', { type: 'video', link: 'https://shop.example.com/a.mp4' }],
    ['LOCATION', 'location', { type: 'location', location: { latitude: 40.4, longitude: -3.7 } }],
  ] as const)(
    'accepts a %s header given as %s, and refuses it missing',
    (format, _type, header) => {
      const template = {
        ...orderUpdate,
        components: [{ type: 'HEADER', format }, orderUpdate.components[1]],
      };
      const send = { ...orderUpdateSend, buttons: undefined };
      expect(templateProblems(found(template), { ...send, header })).toEqual([]);
      expect(fields(found(template), { ...send, header: undefined })).toEqual(['template.header']);
      expect(fields(found(template), { ...send, header: { type: 'text', text: 'x' } })).toEqual([
        'template.header.type',
      ]);
    },
  );

  it('refuses a header parameter for a template whose header has no variable, or no header', () => {
    const staticHeader = {
      ...orderUpdate,
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Tu pedido' },
        orderUpdate.components[1],
      ],
    };
    const send = { ...orderUpdateSend, buttons: undefined };
    expect(templateProblems(found(staticHeader), send)).toEqual([
      {
        field: 'template.header',
        message: "the template's text header has no variable: leave header out",
      },
    ]);
    const noHeader = { ...orderUpdate, components: [orderUpdate.components[1]] };
    expect(templateProblems(found(noHeader), send)).toEqual([
      { field: 'template.header', message: 'the template has no header: leave header out' },
    ]);
  });

  it("names a NAMED template's text header variable, and refuses a name for a POSITIONAL one", () => {
    const namedHeader = {
      ...springSale,
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Sale ends {{end_date}}' },
        ...springSale.components.slice(1),
      ],
    };
    const send = { ...springSaleSend, header: { type: 'text' as const, text: 'Sunday' } };
    expect(templateProblems(found(namedHeader), send)).toEqual([
      {
        field: 'template.header.parameter_name',
        message: `the template's header variable is {{end_date}}: parameter_name must be "end_date"`,
      },
    ]);
    expect(
      templateProblems(found(namedHeader), {
        ...send,
        header: { ...send.header, parameter_name: 'end_date' },
      }),
    ).toEqual([]);
    expect(
      fields(found(orderUpdate), {
        ...orderUpdateSend,
        header: { type: 'text', text: '42', parameter_name: 'order' },
      }),
    ).toEqual(['template.header.parameter_name']);
  });

  it('requires dynamic URL and copy-code button parameters', () => {
    expect(templateProblems(found(springSale), { ...springSaleSend, buttons: undefined })).toEqual([
      {
        field: 'template.buttons',
        message: 'button 0 (URL) needs a parameter: { index: 0, sub_type: "url", parameter }',
      },
    ]);
    expect(templateProblems(found(orderUpdate), { ...orderUpdateSend, buttons: [] })).toEqual([
      {
        field: 'template.buttons',
        message:
          'button 0 (COPY_CODE) needs a parameter: { index: 0, sub_type: "copy_code", parameter }',
      },
    ]);
  });

  it('refuses a button parameter of the wrong sub_type, at no button, or for a button without one', () => {
    expect(
      templateProblems(found(springSale), {
        ...springSaleSend,
        buttons: [{ index: 0, sub_type: 'quick_reply', parameter: 'spring' }],
      }),
    ).toEqual([
      {
        field: 'template.buttons.0.sub_type',
        message: 'button 0 is URL: its sub_type is url, not quick_reply',
      },
    ]);
    expect(
      templateProblems(found(springSale), {
        ...springSaleSend,
        buttons: [...springSaleSend.buttons!, { index: 5, sub_type: 'url', parameter: 'x' }],
      }),
    ).toEqual([
      {
        field: 'template.buttons.1',
        message: 'the template has no button at index 5 (it has 2 buttons)',
      },
    ]);
    expect(
      templateProblems(found(orderUpdate), {
        ...orderUpdateSend,
        buttons: [
          ...orderUpdateSend.buttons!,
          { index: 1, sub_type: 'url', parameter: 'x' },
          { index: 2, sub_type: 'url', parameter: 'x' },
        ],
      }),
    ).toEqual([
      { field: 'template.buttons.1', message: 'button 1 (PHONE_NUMBER) takes no parameter' },
      {
        field: 'template.buttons.2',
        message: 'button 2 (a URL without a variable) takes no parameter',
      },
    ]);
  });

  describe("an authentication template's one-time password button", () => {
    /** The code goes in the body and, as a url button's parameter, at the button's index. */
    const loginCode = (button: Record<string, unknown>): CatalogTemplate => ({
      name: 'login_code',
      language: 'en_US',
      status: 'APPROVED',
      category: 'AUTHENTICATION',
      parameterFormat: 'POSITIONAL',
      components: [
        {
          type: 'BODY',
          text: '*{{1}}* is your verification code. For your security, do not share this code.',
          add_security_recommendation: true,
        },
        { type: 'BUTTONS', buttons: [button] },
      ],
    });
    const code: MessageTemplate = {
      name: 'login_code',
      language: 'en_US',
      parameters: ['123456'],
      buttons: [{ index: 0, sub_type: 'url', parameter: '123456' }],
    };
    // Meta lists it as created (OTP, with its otp_type) in some answers, as a URL in others.
    const shapes: [string, Record<string, unknown>][] = [
      ['OTP COPY_CODE', { type: 'OTP', otp_type: 'COPY_CODE', text: 'Copy code' }],
      [
        'OTP ONE_TAP',
        {
          type: 'OTP',
          otp_type: 'ONE_TAP',
          text: 'Copy code',
          autofill_text: 'Autofill',
          package_name: 'com.example.app',
          signature_hash: 'K8a/AINcGX7',
        },
      ],
      [
        'OTP ZERO_TAP',
        {
          type: 'OTP',
          otp_type: 'ZERO_TAP',
          package_name: 'com.example.app',
          signature_hash: 'K8a/AINcGX7',
          zero_tap_terms_accepted: true,
        },
      ],
      [
        'URL',
        {
          type: 'URL',
          text: 'Copy code',
          url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}',
          example: ['https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp123456'],
        },
      ],
    ];

    it.each(shapes)('accepts the code as a url button parameter (%s)', (_, button) => {
      expect(templateProblems(found(loginCode(button)), code)).toEqual([]);
    });

    it.each(shapes)('requires the code at the button (%s)', (label, button) => {
      expect(templateProblems(found(loginCode(button)), { ...code, buttons: undefined })).toEqual([
        {
          field: 'template.buttons',
          message: expect.stringContaining(
            `button 0 (${label}) needs a parameter: { index: 0, sub_type: "url", parameter }`,
          ),
        },
      ]);
      expect(
        templateProblems(found(loginCode(button)), {
          ...code,
          buttons: [{ index: 0, sub_type: 'copy_code', parameter: '123456' }],
        }),
      ).toEqual([
        {
          field: 'template.buttons.0.sub_type',
          message: `button 0 is ${label}: its sub_type is url, not copy_code`,
        },
      ]);
    });
  });

  describe('components and buttons agentline cannot fill', () => {
    const withComponents = (...components: unknown[]): CatalogTemplate => ({
      name: 'offer',
      language: 'en_US',
      status: 'APPROVED',
      category: 'MARKETING',
      parameterFormat: 'POSITIONAL',
      components: [{ type: 'BODY', text: 'Our new collection is here.' }, ...components],
    });
    const offer: MessageTemplate = { name: 'offer', language: 'en_US', parameters: [] };

    // Shapes as Meta lists them (WhatsApp Business Management API, "Message Templates":
    // carousel, limited-time offer, catalog and multi-product templates).
    it.each([
      [
        'a CAROUSEL',
        {
          type: 'CAROUSEL',
          cards: [
            {
              components: [
                { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1h'] } },
                { type: 'BODY', text: 'Card one' },
              ],
            },
          ],
        },
        'CAROUSEL components are not supported by agentline yet',
      ],
      [
        'a LIMITED_TIME_OFFER with an expiration',
        {
          type: 'LIMITED_TIME_OFFER',
          limited_time_offer: { text: 'Expiring offer!', has_expiration: true },
        },
        'LIMITED_TIME_OFFER components with an expiration (expiration_time_ms) are not supported by agentline yet',
      ],
      [
        'a CATALOG button',
        { type: 'BUTTONS', buttons: [{ type: 'CATALOG', text: 'View catalog' }] },
        'CATALOG buttons (button 0) are not supported by agentline yet',
      ],
      [
        'an MPM button',
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Not now' },
            { type: 'MPM', text: 'View items' },
          ],
        },
        'MPM buttons (button 1) are not supported by agentline yet',
      ],
      [
        'a button of a type agentline does not know',
        { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] },
        'SPM buttons (button 0) are not supported by agentline yet',
      ],
      [
        'a component of a type agentline does not know',
        { type: 'CALL_PERMISSION_REQUEST' },
        'CALL_PERMISSION_REQUEST components are not supported by agentline yet',
      ],
      [
        'a header format agentline does not know',
        { type: 'HEADER', format: 'PRODUCT' },
        'PRODUCT headers are not supported by agentline yet',
      ],
    ])('refuses a template with %s, naming it', (_, component, message) => {
      expect(templateProblems(found(withComponents(component)), offer)).toEqual([
        { field: 'template.name', message },
      ]);
    });

    it('accepts what needs no parameter: a footer, a phone number, a static URL, a quick reply without payload, an offer without expiration', () => {
      const template = withComponents(
        {
          type: 'LIMITED_TIME_OFFER',
          limited_time_offer: { text: 'Offer!', has_expiration: false },
        },
        { type: 'FOOTER', text: 'Reply STOP to opt out' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Not now' },
            { type: 'PHONE_NUMBER', text: 'Call us', phone_number: '+34612345678' },
            { type: 'URL', text: 'Shop', url: 'https://shop.example.com' },
          ],
        },
      );
      expect(templateProblems(found(template), offer)).toEqual([]);
    });
  });

  it('reports every fault at once', () => {
    expect(
      fields(found(springSale), {
        name: 'spring_sale',
        language: 'en_US',
        parameters: ['x'],
      }),
    ).toEqual([
      'template.parameters',
      'template.named_parameters',
      'template.header',
      'template.buttons',
    ]);
  });
});

describe('templateVariables', () => {
  it("reads a component's distinct variables in order", () => {
    expect(templateVariables('{{1}} and {{2}}, again {{1}}')).toEqual(['1', '2']);
    expect(templateVariables('Hi {{ first_name }}!')).toEqual(['first_name']);
    expect(templateVariables(undefined)).toEqual([]);
    expect(templateVariables('no variables')).toEqual([]);
  });
});

describe('templateValueProblems', () => {
  it("accepts filled values within Meta's limits", () => {
    expect(templateValueProblems(orderUpdateSend)).toEqual([]);
    expect(templateValueProblems(springSaleSend)).toEqual([]);
  });

  it("names every empty value and every value over its place's limit", () => {
    expect(
      templateValueProblems({
        parameters: ['', 'x'.repeat(1025)],
        named_parameters: { offer: '' },
        header: { type: 'text', text: 'x'.repeat(61) },
        buttons: [
          { index: 0, sub_type: 'copy_code', parameter: 'SIXTEEN_CHARS_16' },
          { index: 1, sub_type: 'url', parameter: 'x'.repeat(2001) },
        ],
      }),
    ).toEqual([
      {
        field: 'template.parameters.0',
        message: 'template.parameters.0 is empty once filled; Meta refuses an empty value',
      },
      {
        field: 'template.parameters.1',
        message: "template.parameters.1 is 1025 characters once filled; Meta's limit there is 1024",
      },
      {
        field: 'template.named_parameters.offer',
        message:
          'template.named_parameters.offer is empty once filled; Meta refuses an empty value',
      },
      {
        field: 'template.header.text',
        message: "template.header.text is 61 characters once filled; Meta's limit there is 60",
      },
      {
        field: 'template.buttons.0.parameter',
        message:
          "template.buttons.0.parameter is 16 characters once filled; Meta's limit there is 15",
      },
      {
        field: 'template.buttons.1.parameter',
        message:
          "template.buttons.1.parameter is 2001 characters once filled; Meta's limit there is 2000",
      },
    ]);
  });
});
