import { templateRefusal } from './batch-templates';

const template = { name: 'weekly_offer', language: 'en_US' };
const catalogTemplate = (status: string) => ({
  name: 'weekly_offer',
  language: 'en_US',
  status,
  category: 'MARKETING',
  parameterFormat: 'POSITIONAL' as const,
  components: [],
});

describe('templateRefusal', () => {
  it('lets the template go without a catalog, or when it could not be read', () => {
    expect(templateRefusal({ catalog: false }, template)).toBeUndefined();
    expect(templateRefusal(undefined, template)).toBeUndefined();
  });

  it('lets an APPROVED template go', () => {
    const lookup = {
      catalog: true as const,
      template: catalogTemplate('APPROVED'),
      languages: ['en_US'],
    };
    expect(templateRefusal(lookup, template)).toBeUndefined();
  });

  it.each(['PAUSED', 'DISABLED', 'PENDING_DELETION'])(
    'refuses a %s template, saying why',
    (status) => {
      const lookup = {
        catalog: true as const,
        template: catalogTemplate(status),
        languages: ['en_US'],
      };
      expect(templateRefusal(lookup, template)).toEqual({
        code: 'template_not_approved',
        message: `The template "weekly_offer" (en_US) is ${status}, not APPROVED; not sent. A later occurrence sends it once Meta approves it again.`,
      });
    },
  );

  it('refuses a template the account no longer has in that language', () => {
    expect(
      templateRefusal({ catalog: true, template: undefined, languages: ['es'] }, template),
    ).toEqual({
      code: 'template_not_found',
      message:
        'The template "weekly_offer" (en_US) no longer exists in the channel\'s WhatsApp Business Account (it has es); not sent.',
    });
  });
});
