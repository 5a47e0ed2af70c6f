import { composeInput as input } from '../../../test/support/compose-input';
import {
  ComposeInput,
  createMessageComposer,
  fillTemplate,
  finishMessage,
  LlmMessageComposer,
  TemplateMessageComposer,
} from './message-composer';

describe('TemplateMessageComposer', () => {
  const composer = new TemplateMessageComposer();
  const compose = (prompt: string, overrides: Partial<ComposeInput> = {}) =>
    composer.compose({ ...input, ...overrides, prompt });

  it('fills title, phone and description', async () => {
    expect(await compose('Hi {{phone}}! {{title}} — {{description}}')).toBe(
      'Hi +5511987654321! Dentista amanhã às 15h — Trazer exames',
    );
  });

  it('tolerates whitespace inside the braces and repeats', async () => {
    expect(await compose('{{ title }}/{{title}}/{{  phone\t}}')).toBe(
      'Dentista amanhã às 15h/Dentista amanhã às 15h/+5511987654321',
    );
  });

  it('fills a missing description with nothing', async () => {
    expect(await compose('{{title}}. {{description}}', { description: null })).toBe(
      'Dentista amanhã às 15h.',
    );
  });

  it('leaves unknown placeholders as written', async () => {
    expect(await compose('Hi {{name}}, {{ Title }} {title} {{title')).toBe(
      'Hi {{name}}, {{ Title }} {title} {{title',
    );
  });

  it('does not expand placeholders inside filled values', async () => {
    expect(await compose('{{title}}', { title: '{{phone}}' })).toBe('{{phone}}');
  });

  it('trims and caps at 4096 characters', async () => {
    expect(await compose('  \n hello \n ')).toBe('hello');
    const long = await compose(`${'a'.repeat(5000)}`);
    expect(long).toHaveLength(4096);
  });

  it('does not split a surrogate pair at the cap', () => {
    const capped = finishMessage(`${'a'.repeat(4095)}😀tail`, 4096);
    expect(capped).toBe('a'.repeat(4095));
  });

  it('keeps {{phone}} when no phone is given', () => {
    expect(fillTemplate('{{phone}} {{title}}', { title: 't', description: null })).toBe(
      '{{phone}} t',
    );
  });
});

describe('createMessageComposer', () => {
  it('uses templates without an LLM and the LLM when configured', async () => {
    expect(createMessageComposer()).toBeInstanceOf(TemplateMessageComposer);
    const llm = createMessageComposer({ url: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 100 });
    expect(llm).toBeInstanceOf(LlmMessageComposer);
    await llm.close();
  });
});
