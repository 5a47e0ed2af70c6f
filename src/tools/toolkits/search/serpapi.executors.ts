import { ToolExecutionContext, ToolExecutor } from '../../execution/tool-executor';
import { requireApiKey } from '../provider-credentials';
import {
  field,
  isRecord,
  ProviderHttpClient,
  providerError,
  QueryValue,
  records,
  stringOrNull,
} from '../provider-http.client';
import {
  integerInRange,
  nonBlankString,
  optionalBoolean,
  optionalString,
} from '../tool-input.readers';

const PROVIDER = 'SerpApi';
const TIME_RANGES: Readonly<Record<string, string>> = {
  hour: 'qdr:h',
  day: 'qdr:d',
  week: 'qdr:w',
  month: 'qdr:m',
  year: 'qdr:y',
};
// SerpApi answers 200 with this kind of `error` when the engine simply found nothing.
const NO_RESULTS = /hasn't returned any results|no results/i;

/** Search.* over SerpApi's `GET /search.json`, the API key in the `api_key` query parameter. */
export function serpApiExecutors(
  http: ProviderHttpClient,
  baseUrl: string,
): Record<string, ToolExecutor> {
  const search = async (
    query: Record<string, QueryValue>,
    context: ToolExecutionContext,
  ): Promise<unknown> => {
    const apiKey = requireApiKey(context, PROVIDER);
    const response = await http.request(PROVIDER, {
      method: 'GET',
      baseUrl,
      path: ['search.json'],
      query: { ...query, api_key: apiKey },
      signal: context.signal,
      secrets: [apiKey],
    });
    const error = stringOrNull(field(response.body, 'error'));
    if (response.status >= 200 && response.status < 300) {
      if (error === null || NO_RESULTS.test(error)) return response.body;
    }
    throw providerError(PROVIDER, response.status, error ?? undefined, [apiKey]);
  };

  return {
    'Search.WebSearch': {
      async execute(input, context) {
        const count = integerInRange(input, 'num_results', { min: 1, max: 20, fallback: 5 });
        const body = await search(
          engineQuery(
            optionalString(input, 'engine') ?? 'google',
            nonBlankString(input, 'query'),
            count,
            optionalString(input, 'country')?.toLowerCase(),
            optionalString(input, 'language')?.toLowerCase(),
            optionalBoolean(input, 'safe_search') ?? true,
          ),
          context,
        );
        const answerBox = field(body, 'answer_box');
        return {
          results: records(field(body, 'organic_results'))
            .slice(0, count)
            .map((result, index) => ({
              position: typeof result.position === 'number' ? result.position : index + 1,
              title: stringOrNull(result.title),
              link: stringOrNull(result.link),
              snippet: stringOrNull(result.snippet),
            })),
          ...(isRecord(answerBox) && {
            answer_box: {
              title: stringOrNull(answerBox.title),
              answer: stringOrNull(answerBox.answer) ?? stringOrNull(answerBox.result),
              snippet: stringOrNull(answerBox.snippet),
              link: stringOrNull(answerBox.link),
            },
          }),
        };
      },
    },
    'Search.NewsSearch': {
      async execute(input, context) {
        const count = integerInRange(input, 'num_results', { min: 1, max: 20, fallback: 5 });
        const body = await search(
          {
            engine: 'google',
            tbm: 'nws',
            q: nonBlankString(input, 'query'),
            num: count,
            tbs: TIME_RANGES[optionalString(input, 'time_range') ?? 'week'],
          },
          context,
        );
        return {
          articles: records(field(body, 'news_results'))
            .slice(0, count)
            .map((article) => ({
              title: stringOrNull(article.title),
              // Older answers give the source as a name, newer ones as {name, icon}.
              source:
                stringOrNull(article.source) ?? stringOrNull(field(article, 'source', 'name')),
              date: stringOrNull(article.date),
              link: stringOrNull(article.link),
              snippet: stringOrNull(article.snippet),
            })),
        };
      },
    },
  };
}

/** Each engine names its localisation and safe-search parameters differently. */
function engineQuery(
  engine: string,
  q: string,
  count: number,
  country: string | undefined,
  language: string | undefined,
  safe: boolean,
): Record<string, QueryValue> {
  switch (engine) {
    case 'bing':
      return {
        engine,
        q,
        count,
        cc: country,
        mkt: country && language ? `${language}-${country.toUpperCase()}` : undefined,
        safeSearch: safe ? 'Strict' : 'Off',
      };
    case 'duckduckgo':
      return {
        engine,
        q,
        kl: country ? `${country}-${language ?? 'en'}` : undefined,
        safe: safe ? 1 : -2,
      };
    default:
      return { engine, q, num: count, gl: country, hl: language, safe: safe ? 'active' : 'off' };
  }
}
