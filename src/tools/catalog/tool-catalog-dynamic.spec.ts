import { Logger } from '@nestjs/common';
import { loadToolCatalog, ToolCatalog } from './tool-catalog';
import { DynamicToolkitDefinition } from './tool-specification.types';

function aToolkit(name: string, tools = ['Echo'], server = 'srv'): DynamicToolkitDefinition {
  return {
    name,
    description: `${name} tools.`,
    version: '1.0.0',
    tools: tools.map((tool) => ({
      name: tool,
      description: `${tool} tool.`,
      parameters: [
        {
          name: 'message',
          description: 'Text.',
          required: true,
          value_schema: { val_type: 'string' },
        },
      ],
      output: {
        description: 'Result.',
        available_modes: ['value', 'error'],
        value_schema: { val_type: 'json' },
      },
      origin: { kind: 'mcp', server, tool: tool.toLowerCase() },
    })),
  };
}

describe('dynamic toolkits', () => {
  let catalog: ToolCatalog;
  let builtinCount: number;
  let warn: jest.SpyInstance;

  beforeEach(() => {
    catalog = loadToolCatalog();
    builtinCount = catalog.size;
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => warn.mockRestore());

  it('marks built-in tools with a builtin origin', () => {
    expect(catalog.find('Google.SendEmail')!.origin).toEqual({ kind: 'builtin' });
  });

  it('lists, finds and sorts dynamic tools with the built-ins', () => {
    const result = catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme', ['Zeta', 'Alpha'])]);
    expect(result).toEqual({ accepted: ['Acme'], skipped: [] });
    expect(catalog.size).toBe(builtinCount + 2);
    expect(catalog.toolkits()[0]).toBe('Acme');
    const page = catalog.list({ toolkit: 'acme', offset: 0, limit: 10 });
    expect(page.items.map((s) => s.name)).toEqual(['Alpha', 'Zeta']);
    const spec = catalog.find('Acme.Zeta@1.0.0')!;
    expect(spec.origin).toEqual({ kind: 'mcp', server: 'srv', tool: 'zeta' });
    expect(spec.parameters[0].inferrable).toBe(true);
    expect(Object.isFrozen(spec.origin)).toBe(true);
    const all = catalog.list({ offset: 0, limit: 1000 }).items;
    const keys = all.map((s) => `${s.toolkit.name}\u0000${s.name}`.toLowerCase());
    expect(keys).toEqual([...keys].sort());
  });

  it("replaces a source's toolkits as a whole, and removes them with an empty list", () => {
    catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme', ['One', 'Two'])]);
    catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme', ['Three'])]);
    expect(
      catalog.list({ toolkit: 'Acme', offset: 0, limit: 10 }).items.map((s) => s.name),
    ).toEqual(['Three']);
    expect(catalog.find('Acme.One')).toBeUndefined();
    catalog.setDynamicToolkits('mcp:a', []);
    expect(catalog.toolkits()).not.toContain('Acme');
    expect(catalog.size).toBe(builtinCount);
  });

  it('skips a toolkit named like a built-in or another source’s toolkit', () => {
    expect(catalog.setDynamicToolkits('mcp:a', [aToolkit('GOOGLE')]).skipped).toEqual([
      { toolkit: 'GOOGLE', reason: 'the toolkit name is already used by a built-in toolkit' },
    ]);
    expect(warn).toHaveBeenCalledWith(
      'Skipped toolkit "GOOGLE" of source "mcp:a": the toolkit name is already used by a built-in toolkit',
    );
    catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme')]);
    const result = catalog.setDynamicToolkits('mcp:b', [aToolkit('acme'), aToolkit('Beta')]);
    expect(result.accepted).toEqual(['Beta']);
    expect(result.skipped[0].reason).toBe('the toolkit name is already used by source "mcp:a"');
    expect(catalog.find('Acme.Echo')!.origin).toMatchObject({ server: 'srv' });
    // A refresh of the first owner keeps its name.
    expect(catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme')]).accepted).toEqual(['Acme']);
  });

  it('skips a toolkit whose function names clash with another', () => {
    catalog.setDynamicToolkits('mcp:a', [aToolkit('A_B', ['C'])]);
    const result = catalog.setDynamicToolkits('mcp:b', [aToolkit('A', ['B_C'])]);
    expect(result.skipped).toEqual([
      {
        toolkit: 'A',
        reason: '"A.B_C" and "A_B.C" both format to the function name "A_B_C"',
      },
    ]);
  });

  it('skips invalid toolkits and keeps the valid ones', () => {
    const bad = { ...aToolkit('Bad-Name'), version: 'latest' };
    const result = catalog.setDynamicToolkits('mcp:a', [bad, aToolkit('Good')]);
    expect(result.accepted).toEqual(['Good']);
    expect(result.skipped[0].toolkit).toBe('Bad-Name');
    expect(result.skipped[0].reason).toMatch(/^name: "Bad-Name" must match/);
    expect(result.skipped[0].reason).toMatch(/version: "latest" is not a semantic version/);
  });

  it('treats a dynamic tool without an origin as built-in', () => {
    const kit = aToolkit('Plain');
    delete kit.tools[0].origin;
    catalog.setDynamicToolkits('extra', [kit]);
    expect(catalog.find('Plain.Echo')!.origin).toEqual({ kind: 'builtin' });
  });

  it('does not freeze or change the caller’s definitions', () => {
    const kit = aToolkit('Acme');
    catalog.setDynamicToolkits('mcp:a', [kit]);
    expect(Object.isFrozen(kit.tools[0].origin)).toBe(false);
    expect(kit.tools[0].origin).toEqual({ kind: 'mcp', server: 'srv', tool: 'echo' });
  });

  it('hands out pages that later updates do not change', () => {
    catalog.setDynamicToolkits('mcp:a', [aToolkit('Acme')]);
    const before = catalog.list({ offset: 0, limit: 1000 });
    catalog.setDynamicToolkits('mcp:a', []);
    expect(before.items.some((s) => s.toolkit.name === 'Acme')).toBe(true);
    expect(before.total).toBe(builtinCount + 1);
  });
});
