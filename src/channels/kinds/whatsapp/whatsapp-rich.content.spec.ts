import { ProblemException } from '../../../common/http/problem';
import { whatsappRichMessage } from './whatsapp-rich.content';

const WAMID = 'wamid.HBgLMzQ2MTIzNDU2NzgVAgASGBQzQTdCRDE2NEQ5RjQ2QzZBQjY3NQA=';
const reaction = (emoji: string) => whatsappRichMessage({ reaction: { message_id: WAMID, emoji } });
const refusedField = (work: () => unknown): string | undefined => {
  try {
    work();
  } catch (error) {
    if (error instanceof ProblemException) return error.errors?.[0]?.field;
    throw error;
  }
  return undefined;
};

describe('whatsappRichMessage', () => {
  it.each(['👍', '❤️', '👍🏽', '👨‍👩‍👧', '🇪🇸', ''])('takes %p as a reaction', (emoji) => {
    expect(reaction(emoji)).toEqual({ type: 'reaction', reaction: { message_id: WAMID, emoji } });
  });

  it.each(['ok', '👍👍', 'a👍', '1'])('refuses %p as a reaction', (emoji) => {
    expect(refusedField(() => reaction(emoji))).toBe('reaction.emoji');
  });

  it('keeps plain text and templates out of the rich path', () => {
    expect(whatsappRichMessage({ text: 'Hi' })).toBeUndefined();
    expect(whatsappRichMessage({ template: {} })).toBeUndefined();
    expect(whatsappRichMessage({ text: 'Hi', reply_to: WAMID })).toEqual({
      type: 'text',
      text: 'Hi',
      reply_to: WAMID,
    });
  });
});
