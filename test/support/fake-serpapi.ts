import { Server } from 'node:http';
import { FakeHttpApi, FakeHttpReply, RecordedRequest } from './fake-http-api';

/** A query Google finds nothing for: SerpApi answers 200 with an `error` that says so. */
export const NOTHING_FOUND_QUERY = 'qwxzv plorkfen snarbulous';

/** What the fake's Google engine answers for "capital of portugal" (SerpApi's shape, trimmed). */
export const CAPITAL_OF_PORTUGAL = {
  answer_box: {
    type: 'organic_result',
    title: 'Portugal / Capital',
    answer: 'Lisbon',
    link: 'https://en.wikipedia.org/wiki/Lisbon',
  },
  organic_results: [
    {
      position: 1,
      title: 'Lisbon - Wikipedia',
      link: 'https://en.wikipedia.org/wiki/Lisbon',
      redirect_link: 'https://www.google.com/url?sa=t&url=https://en.wikipedia.org/wiki/Lisbon',
      displayed_link: 'https://en.wikipedia.org › wiki › Lisbon',
      snippet:
        'Lisbon is the capital and largest city of Portugal, with an estimated population of 567,131.',
      snippet_highlighted_words: ['Lisbon is the capital'],
      source: 'Wikipedia',
    },
    {
      position: 2,
      title: 'Lisbon | History, Culture, Geography, & Map | Britannica',
      link: 'https://www.britannica.com/place/Lisbon',
      displayed_link: 'https://www.britannica.com › ... › Cities & Towns',
      snippet:
        'Lisbon, city, port, capital of Portugal, and the centre of the Lisbon metropolitan area.',
      source: 'Britannica',
    },
    {
      position: 3,
      title: 'Visit Lisboa - Official tourism website',
      link: 'https://www.visitlisboa.com/en',
      displayed_link: 'https://www.visitlisboa.com › en',
      snippet: 'Discover the capital of Portugal: monuments, museums, miradouros and fado.',
      source: 'Visit Lisboa',
    },
    {
      position: 4,
      title: 'Portugal - The World Factbook',
      link: 'https://www.cia.gov/the-world-factbook/countries/portugal/',
      displayed_link: 'https://www.cia.gov › countries › portugal',
      snippet: 'Capital name: Lisbon; geographic coordinates: 38 43 N, 9 08 W.',
      source: 'CIA',
    },
  ],
};

/** SerpApi's Google News results (`tbm=nws`): the source is a plain name there. */
export const ECB_NEWS = [
  {
    position: 1,
    link: 'https://www.reuters.com/markets/europe/ecb-cuts-rates-2025-03-06/',
    title: 'ECB cuts rates again, signals pause may be near',
    source: 'Reuters',
    date: '1 week ago',
    snippet: 'The European Central Bank cut interest rates for the sixth time since June.',
    thumbnail: 'https://serpapi.com/searches/abc/images/1.jpeg',
  },
  {
    position: 2,
    link: 'https://www.ft.com/content/ecb-lagarde-press-conference',
    title: 'Lagarde says ECB policy is becoming meaningfully less restrictive',
    source: 'Financial Times',
    date: '6 days ago',
    snippet: 'Christine Lagarde said the ECB was nearing the end of its easing cycle.',
    thumbnail: 'https://serpapi.com/searches/abc/images/2.jpeg',
  },
  {
    position: 3,
    link: 'https://www.bloomberg.com/news/articles/2025-03-12/ecb-officials',
    title: 'ECB officials split over April move',
    source: 'Bloomberg',
    date: '2 days ago',
    snippet: 'Policy makers disagree over whether to cut again next month.',
    thumbnail: 'https://serpapi.com/searches/abc/images/3.jpeg',
  },
];

const ENGINES = new Set(['google', 'bing', 'duckduckgo']);

/**
 * SerpApi's `GET /search.json` as far as the Search toolkit uses it: the google engine (web and
 * `tbm=nws` news), bing and duckduckgo, the key in `api_key`, SerpApi's `{error}` answers.
 */
export class FakeSerpApi extends FakeHttpApi {
  static start(validKeys: readonly string[]): Promise<FakeSerpApi> {
    return FakeHttpApi.listen(
      (server: Server, url: string) =>
        new FakeSerpApi(server, url, (request) => answer(request, validKeys)),
    );
  }
}

function answer(request: RecordedRequest, validKeys: readonly string[]): FakeHttpReply {
  if (request.method !== 'GET' || request.path !== '/search.json') {
    return { status: 404, body: { error: 'Not Found' } };
  }
  const { api_key: apiKey, engine = 'google', q } = request.query;
  if (!apiKey || !validKeys.includes(apiKey)) {
    return {
      status: 401,
      body: {
        error: 'Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key',
      },
    };
  }
  if (!ENGINES.has(engine)) {
    return { status: 400, body: { error: `Unsupported \`${engine}\` search engine.` } };
  }
  if (!q) return { status: 400, body: { error: 'Missing query `q` parameter.' } };

  // SerpApi echoes the search's parameters, never the key.
  const parameters = Object.fromEntries(
    Object.entries(request.query).filter(([name]) => name !== 'api_key'),
  );
  const envelope = {
    search_metadata: {
      id: '67d43b2f8e1a2c0b9d7f4e21',
      status: 'Success',
      json_endpoint: 'https://serpapi.com/searches/67d43b2f8e1a2c0b9d7f4e21.json',
      created_at: '2025-03-14 14:30:00 UTC',
      total_time_taken: 1.42,
    },
    search_parameters: { engine, ...parameters },
  };
  if (q === NOTHING_FOUND_QUERY) {
    const name = engine === 'google' ? 'Google' : engine === 'bing' ? 'Bing' : 'DuckDuckGo';
    return {
      status: 200,
      body: {
        ...envelope,
        search_information: { organic_results_state: 'Fully empty' },
        error: `${name} hasn't returned any results for this query.`,
      },
    };
  }
  if (engine === 'google' && request.query.tbm === 'nws') {
    return {
      status: 200,
      body: { ...envelope, news_results: ECB_NEWS.slice(0, limit(request.query.num)) },
    };
  }
  const found = q.toLowerCase() === 'capital of portugal' ? CAPITAL_OF_PORTUGAL : generic(q);
  const count = limit(engine === 'bing' ? request.query.count : request.query.num);
  return {
    status: 200,
    body: {
      ...envelope,
      search_information: { total_results: 1_240_000, time_taken_displayed: 0.31 },
      ...found,
      organic_results: found.organic_results.slice(0, count),
    },
  };
}

/** Google's default page is 10 results. */
function limit(value: string | undefined): number {
  const count = Number(value ?? 10);
  return Number.isInteger(count) && count > 0 ? count : 10;
}

function generic(q: string) {
  return {
    organic_results: Array.from({ length: 10 }, (_, i) => ({
      position: i + 1,
      title: `${q} – result ${i + 1}`,
      link: `https://example.com/${encodeURIComponent(q)}/${i + 1}`,
      snippet: `About ${q}, part ${i + 1}.`,
    })),
  };
}
