import { validateTemplate } from './graph/graph-template-shapes';
import { checkTemplateSend } from './sandbox-templates';

/** A template send as Graph receives it, checked for its shape first (as the stand-in does). */
const sent = (template: Record<string, unknown>) => {
  const checked = validateTemplate(template);
  if (typeof checked === 'string') throw new Error(checked);
  return checked;
};
const codeOf = (answer: ReturnType<typeof checkTemplateSend>) =>
  'status' in answer ? (answer.body as { error: { code: number } }).error.code : answer.category;

describe('checkTemplateSend (the sandbox catalog)', () => {
  it('takes hello_world as Meta gives it, and prices by the template’s category', () => {
    expect(
      codeOf(checkTemplateSend(sent({ name: 'hello_world', language: { code: 'en_US' } }))),
    ).toBe('utility');
  });

  it('refuses a name or a language it does not have with 132001', () => {
    expect(codeOf(checkTemplateSend(sent({ name: 'welcome', language: { code: 'en_US' } })))).toBe(
      132001,
    );
    expect(codeOf(checkTemplateSend(sent({ name: 'hello_world', language: { code: 'es' } })))).toBe(
      132001,
    );
  });

  it('counts body parameters: 132000 when they are not the template’s', () => {
    const reminder = (texts: string[]) =>
      sent({
        name: 'appointment_reminder',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: texts.map((text) => ({ type: 'text', text })) }],
      });
    expect(codeOf(checkTemplateSend(reminder(['Ana'])))).toBe(132000);
    expect(codeOf(checkTemplateSend(reminder(['Ana', 'Friday', 'extra'])))).toBe(132000);
    expect(codeOf(checkTemplateSend(reminder(['Ana', 'Friday at 10:00'])))).toBe('utility');
  });

  it('wants the named parameters and the image header of spring_sale', () => {
    const body = {
      type: 'body',
      parameters: [
        { type: 'text', parameter_name: 'first_name', text: 'Ana' },
        { type: 'text', parameter_name: 'discount', text: '20%' },
      ],
    };
    const header = {
      type: 'header',
      parameters: [{ type: 'image', image: { link: 'https://shop.example.com/sale.jpg' } }],
    };
    const spring = (components: unknown[]) =>
      sent({ name: 'spring_sale', language: { code: 'en_US' }, components });
    expect(codeOf(checkTemplateSend(spring([header, body])))).toBe('marketing');
    expect(codeOf(checkTemplateSend(spring([body])))).toBe(132012);
    const misnamed = {
      ...body,
      parameters: [
        { type: 'text', parameter_name: 'first_name', text: 'Ana' },
        { type: 'text', parameter_name: 'offer', text: '20%' },
      ],
    };
    expect(codeOf(checkTemplateSend(spring([header, misnamed])))).toBe(132000);
  });
});
