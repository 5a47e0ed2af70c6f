import { composeInput as input } from './support/compose-input';
import { FakeLlm } from './support/fake-llm';
import { ComposeError, LlmMessageComposer } from '../src/scheduler/delivery/message-composer';

describe('LlmMessageComposer', () => {
  const API_KEY = 'sk-test-secret-key';
  let llm: FakeLlm;
  let composer: LlmMessageComposer;

  beforeAll(async () => {
    llm = await FakeLlm.start();
    composer = new LlmMessageComposer({
      url: llm.url,
      model: 'gpt-test',
      apiKey: API_KEY,
      // Far above a loopback answer on a loaded machine (200 ms failed a CI run), far below the
      // slow answer's 3 s below.
      timeoutMs: 1000,
    });
  });

  afterEach(() => llm.reset());

  afterAll(async () => {
    await composer.close();
    await llm.close();
  });

  it('asks once per occurrence and fills each number in locally', async () => {
    llm.setContent(() => 'Hola {{phone}}');
    const occurrenceAt = Date.UTC(2031, 5, 1);
    const [a, b] = await Promise.all([
      composer.compose({ ...input, occurrenceAt, phone: '+34600000001' }),
      composer.compose({ ...input, occurrenceAt, phone: '+34600000002' }),
    ]);
    expect([a, b]).toEqual(['Hola +34600000001', 'Hola +34600000002']);
    expect(llm.requests).toHaveLength(1);
    await composer.compose({ ...input, occurrenceAt: occurrenceAt + 1 });
    expect(llm.requests).toHaveLength(2);
    llm.setContent(undefined);
  });

  it('asks again after a failure instead of keeping it', async () => {
    const occurrenceAt = Date.UTC(2031, 6, 1);
    llm.enqueue({ status: 500, body: { error: { message: 'boom' } } });
    await expect(composer.compose({ ...input, occurrenceAt })).rejects.toMatchObject({
      code: 'llm_http_500',
    });
    await expect(composer.compose({ ...input, occurrenceAt })).resolves.toEqual(expect.any(String));
    expect(llm.requests).toHaveLength(2);
  });

  const composeError = async (): Promise<ComposeError> => {
    try {
      await composer.compose(input);
    } catch (error) {
      expect(error).toBeInstanceOf(ComposeError);
      expect((error as Error).message).not.toContain(API_KEY);
      return error as ComposeError;
    }
    throw new Error('compose did not fail');
  };

  it('asks the model with a system and a user message, without the phone', async () => {
    llm.setContent(() => '  Olá! Não esqueça da consulta amanhã às 15h.  \n');

    expect(await composer.compose(input)).toBe('Olá! Não esqueça da consulta amanhã às 15h.');
    expect(llm.requests).toHaveLength(1);
    const [request] = llm.requests;
    expect(request.model).toBe('gpt-test');
    expect(request.authorization).toBe(`Bearer ${API_KEY}`);
    expect(request.temperature).toBe(0.7);
    expect(request.maxTokens).toBe(500);
    expect(request.messages.map((message) => message.role)).toEqual(['system', 'user']);
    expect(request.messages[0].content).toMatch(/one WhatsApp message/);
    expect(request.messages[0].content).toMatch(/language/);
    const user = request.messages[1].content;
    expect(user).toContain('Lembre o cliente da consulta: Dentista amanhã às 15h');
    expect(user).toContain('Trazer exames');
    expect(JSON.stringify(request.body)).not.toContain('987654321');
  });

  it('keeps {{phone}} out of the request and fills it in the answer', async () => {
    llm.setContent(() => 'Ligue para {{phone}}');

    expect(await composer.compose({ ...input, prompt: 'Peça para ligar para {{ phone }}' })).toBe(
      'Ligue para +5511987654321',
    );
    expect(JSON.stringify(llm.requests[0].body)).not.toContain('987654321');
    expect(llm.requests[0].messages[1].content).toContain('{{ phone }}');
  });

  it('sends no Authorization without an API key, and omits a missing description', async () => {
    const open = new LlmMessageComposer({ url: `${llm.url}/`, model: 'local', timeoutMs: 1000 });
    try {
      expect(await open.compose({ ...input, description: null })).toMatch(/^Hello! /);
      expect(llm.requests[0].authorization).toBeUndefined();
      expect(llm.requests[0].messages[1].content).not.toContain('Details');
    } finally {
      await open.close();
    }
  });

  it('caps a long answer at 4096 characters', async () => {
    llm.setContent(() => `  ${'b'.repeat(6000)}`);

    expect(await composer.compose(input)).toBe('b'.repeat(4096));
  });

  it.each([
    [500, 'llm_http_500'],
    [429, 'llm_http_429'],
    [401, 'llm_http_401'],
  ])('fails with HTTP %i as %s', async (status, code) => {
    llm.enqueue({
      status,
      body: { error: { message: `Incorrect API key provided: ${API_KEY}`, type: 'x' } },
    });

    const error = await composeError();
    expect(error.code).toBe(code);
    expect(error.message).toContain(`HTTP ${status}`);
    expect(error.message).toContain('[redacted]');
  });

  it('times out a hanging answer at its time-out', async () => {
    llm.enqueue('hang');

    const error = await composeError();
    expect(error.code).toBe('llm_timeout');
    expect(error.message).toBe('The LLM did not answer within 1000 ms');
  });

  it('times out a slow answer before it arrives', async () => {
    // The order of two timers in this process, not a wall-clock bound: the 1 s time-out fires
    // before the fake's 3 s delay however loaded the machine is.
    llm.enqueue({ content: 'late', delayMs: 3000 });

    expect((await composeError()).code).toBe('llm_timeout');
  });

  it('fails on garbage JSON', async () => {
    llm.enqueue('garbage');

    expect((await composeError()).code).toBe('llm_bad_response');
  });

  it('fails on a JSON body that is not a completion', async () => {
    llm.enqueue({ status: 200, body: { hello: 'world' } });

    expect((await composeError()).code).toBe('llm_bad_response');
  });

  it('fails on empty choices and on blank content', async () => {
    llm.enqueue('empty-choices', { content: '   \n ' });

    expect((await composeError()).code).toBe('llm_empty_response');
    expect((await composeError()).code).toBe('llm_empty_response');
  });

  it('fails on a dropped connection and when nothing listens', async () => {
    llm.enqueue('destroy');
    expect((await composeError()).code).toBe('llm_network_error');

    const nowhere = new LlmMessageComposer({
      url: 'http://127.0.0.1:9/v1',
      model: 'm',
      apiKey: API_KEY,
      timeoutMs: 500,
    });
    try {
      await expect(nowhere.compose(input)).rejects.toMatchObject({ code: 'llm_network_error' });
    } finally {
      await nowhere.close();
    }
  });

  it('recovers after failures, reusing its connection', async () => {
    llm.enqueue({ status: 500 });
    await composeError();

    expect(await composer.compose(input)).toMatch(/^Hello! Instruction: /);
  });
});
