import { Injectable } from '@nestjs/common';
import type { ProblemExample } from '../../../../common/http/openapi.decorators';
import { ProblemException } from '../../../../common/http/problem';
import { describeTemplateProblems, templateProblems } from './template-checks';
import type { MessageTemplate } from './template-message.dto';
import { WhatsappTemplateCatalog } from './whatsapp-template-catalog';

/** The template checks where a template is accepted: a follow-up, a send now. */
@Injectable()
export class TemplateSendChecks {
  constructor(private readonly catalog: WhatsappTemplateCatalog) {}

  /**
   * `422 template_invalid` naming every fault when the channel's catalog says the template cannot
   * go as given; nothing when it can, or when the channel has no catalog. The channel must already
   * be known to be the caller's.
   */
  async assertSendable(channelId: string, template: MessageTemplate): Promise<void> {
    const lookup = await this.catalog.lookup({
      channelId,
      name: template.name,
      language: template.language,
    });
    const problems = templateProblems(lookup, template);
    if (problems.length > 0) {
      throw new ProblemException('template_invalid', describeTemplateProblems(problems), {
        errors: problems,
      });
    }
  }
}

/** The 422 a template the catalog refuses gets, as OpenAPI shows it. */
export const TEMPLATE_INVALID: ProblemExample = {
  code: 'template_invalid',
  detail:
    'The template cannot be sent as given: template "spring_sale" does not exist in fr; the account has it in en_US, es.',
};
