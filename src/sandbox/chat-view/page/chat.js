// The sandbox's chat view (docs/sandbox.md, "The chat view"). Vanilla JS, no build step. Every
// message text is attacker-controlled: it is only ever set with textContent, never as HTML.

const TOKEN_KEY = 'agentline.sandbox.token';
const TICKS = { accepted: '🕓', sent: '✓', delivered: '✓✓', read: '✓✓' };
const KIND_LABEL = { whatsapp: 'WhatsApp', messanger: 'Messenger' };

const $ = (id) => document.getElementById(id);
let current; // { kind, channelId, client }
let stream; // the AbortController of the open event stream
let channels = [];
const mediaUrls = new Map(); // media key -> blob URL, fetched once

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

const token = () => sessionStorage.getItem(TOKEN_KEY);

class ApiError extends Error {
  constructor(status, problem) {
    super(problem && problem.detail ? `${problem.title}: ${problem.detail}` : `HTTP ${status}`);
    this.status = status;
  }
}

async function api(path, init = {}) {
  const response = await fetch(path, {
    ...init,
    headers: { ...(init.headers || {}), Authorization: `Bearer ${token()}` },
  });
  if (response.status === 401) {
    askForToken('The token was refused: ' + (await problemOf(response)).message);
    throw new ApiError(401);
  }
  if (!response.ok) throw await problemOf(response);
  return response;
}

async function problemOf(response) {
  const problem = await response.json().catch(() => undefined);
  return new ApiError(response.status, problem);
}

const json = async (path) => (await (await api(path)).json()).data;

// --- token ---------------------------------------------------------------------------------

function askForToken(message) {
  sessionStorage.removeItem(TOKEN_KEY);
  if (stream) stream.abort();
  $('app').hidden = true;
  $('forget-token').hidden = true;
  $('token-form').hidden = false;
  $('token-error').textContent = message || '';
}

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = $('token-input')
    .value.trim()
    .replace(/^Bearer\s+/i, '');
  if (!value) return;
  sessionStorage.setItem(TOKEN_KEY, value);
  $('token-input').value = '';
  start();
});

$('forget-token').addEventListener('click', () => askForToken(''));

// --- channels and clients ------------------------------------------------------------------

/** Each channel's item, kept across reloads: a client's number half typed in it stays. */
const channelItems = new Map();

async function loadChannels() {
  channels = await json('/sandbox/api/channels');
  const items = channels.map((channel) => {
    if (!channelItems.has(channel.id)) channelItems.set(channel.id, channelItem(channel));
    const item = channelItems.get(channel.id);
    item.querySelector('.hint').textContent =
      `agent ${channel.agent_id}${channel.status === 'active' ? '' : ' · ' + channel.status}`;
    item.querySelector('.clients').replaceChildren(...clientItems(channel));
    return item;
  });
  const list = $('channel-list');
  const same =
    items.length === list.children.length && items.every((item, i) => list.children[i] === item);
  if (!same) list.replaceChildren(...items);
  $('channels-empty').hidden = channels.length > 0;
}

function channelItem(channel) {
  const open = el(
    'form',
    { class: 'open-client' },
    el('input', {
      type: 'text',
      required: 'required',
      maxlength: '64',
      'aria-label': 'Client',
      placeholder: channel.kind === 'whatsapp' ? '+34612345678' : 'PSID',
    }),
    el('button', { type: 'submit' }, 'Open'),
  );
  open.addEventListener('submit', (event) => {
    event.preventDefault();
    const client = open.querySelector('input').value.trim();
    if (client) select(channel, channel.kind === 'whatsapp' ? client.replace(/\D/g, '') : client);
  });
  return el(
    'li',
    { class: 'channel', 'data-channel': channel.id },
    el('h3', {}, `${KIND_LABEL[channel.kind]} · ${channel.sender_id}`),
    el('p', { class: 'hint' }),
    el('ul', { class: 'clients' }),
    open,
  );
}

function clientItems(channel) {
  return channel.clients.map(({ client, last }) => {
    const button = el(
      'button',
      { type: 'button', class: 'client', 'data-client': client },
      el('strong', {}, displayClient(channel.kind, client)),
      el('span', { class: 'preview' }, previewOf(last)),
    );
    if (isCurrent(channel.kind, channel.id, client)) button.classList.add('selected');
    button.addEventListener('click', () => select(channel, client));
    return el('li', {}, button);
  });
}

const displayClient = (kind, client) => (kind === 'whatsapp' ? `+${client}` : client);
const isCurrent = (kind, channelId, client) =>
  current && current.kind === kind && current.channelId === channelId && current.client === client;

function select(channel, client) {
  current = { kind: channel.kind, channelId: channel.id, client };
  atBottom = true;
  $('conversation-title').textContent =
    `${displayClient(channel.kind, client)} ↔ ${KIND_LABEL[channel.kind]} ${channel.sender_id}`;
  $('compose').hidden = false;
  $('compose-text').placeholder = `Write as ${displayClient(channel.kind, client)}…`;
  $('compose-error').textContent = '';
  for (const button of document.querySelectorAll('.client')) {
    button.classList.toggle(
      'selected',
      button.closest('.channel').dataset.channel === channel.id && button.dataset.client === client,
    );
  }
  loadConversation().catch(showError);
}

// --- the conversation --------------------------------------------------------------------------

async function loadConversation() {
  if (!current) return;
  const shown = current;
  const messages = await json(
    `/sandbox/api/conversations/${shown.kind}/${encodeURIComponent(shown.channelId)}/${encodeURIComponent(shown.client)}`,
  );
  if (shown !== current) return; // another conversation was picked meanwhile
  // A reaction shows on the message it reacts to; alone only when that one is not listed.
  const ids = new Set(messages.map((message) => message.id));
  const reactions = new Map();
  for (const message of messages) {
    const reaction = reactionOf(message);
    if (reaction && ids.has(reaction.target)) reactions.set(reaction.target, reaction.emoji);
  }
  const list = $('messages');
  list.replaceChildren(
    ...messages
      .filter((message) => !reactions.has((reactionOf(message) || {}).target))
      .map((message) => bubble(message, reactions.get(message.id))),
  );
  keepAtBottom();
}

/** The conversation follows new messages (and images as they load) while it is scrolled to its end. */
let atBottom = true;
$('messages').addEventListener('scroll', () => {
  const list = $('messages');
  atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 8;
});
function keepAtBottom() {
  if (atBottom) $('messages').scrollTop = $('messages').scrollHeight;
}

function bubble(message, reaction) {
  const out = message.direction === 'to_client';
  const node = el(
    'li',
    {
      class: `message ${out ? 'out' : 'in'}`,
      'data-id': message.id,
      'data-type': message.type,
    },
    content(message),
  );
  const time = new Date(message.at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  const meta = el('span', { class: 'meta' }, time);
  if (out && TICKS[message.state]) {
    meta.append(
      el(
        'span',
        {
          class: `ticks ${message.state}`,
          'data-state': message.state,
          title: Object.entries(message.state_at)
            .map(([s, at]) => `${s} ${new Date(at).toLocaleTimeString()}`)
            .join(', '),
        },
        TICKS[message.state],
      ),
    );
  }
  node.append(meta);
  if (message.state === 'failed') {
    const error = message.error;
    node.append(
      el(
        'p',
        { class: 'failure', 'data-state': 'failed' },
        out ? '❗ Not delivered' : '❗ The webhook refused it',
        error ? ` — ${error.code} ${error.title}: ${error.message}` : '',
      ),
    );
  }
  if (reaction) node.append(el('span', { class: 'reaction' }, reaction));
  return node;
}

/** A reaction (WhatsApp's, or Messenger's) shows on the message it reacts to. */
function reactionOf(message) {
  const reaction = message.body.reaction;
  if (!reaction) return undefined;
  return { target: reaction.message_id || reaction.mid, emoji: reaction.emoji || '' };
}

/** The bubble's content, by Meta's message type. */
function content(message) {
  const body = message.body;
  if (message.template) return template(message, message.template);
  if (current.kind === 'messanger') return messenger(message);
  switch (message.type) {
    case 'text':
      return el('p', { class: 'text' }, (body.text && body.text.body) || '');
    case 'image':
    case 'sticker':
    case 'video':
    case 'audio':
    case 'document':
      return media(message.type, body[message.type] || {});
    case 'location':
      return place(body.location || {});
    case 'contacts':
      return el('div', {}, (body.contacts || []).map(contact));
    case 'interactive':
      return interactive(message, body.interactive || {});
    case 'button':
      return el('p', { class: 'reply' }, '↩ ', (body.button && body.button.text) || '');
    case 'reaction':
      return el(
        'p',
        { class: 'hint' },
        `reacted ${(body.reaction && body.reaction.emoji) || '(removed)'}`,
      );
    default:
      return el('p', { class: 'hint' }, `[${message.type} message]`);
  }
}

function media(type, item, caption) {
  const box = el('div', { class: `media ${type}` });
  const label =
    {
      image: '🖼 Image',
      sticker: '🖼 Sticker',
      video: '🎬 Video',
      audio: '🎵 Audio',
      document: '📄 Document',
    }[type] || type;
  if (type === 'image' || type === 'sticker') {
    const img = el('img', {
      alt: item.caption || label,
      'data-media': item.id || item.link || item.url || '',
    });
    box.append(img);
    const link = item.link || item.url;
    const asLabel = (why) =>
      img.replaceWith(
        el('span', { class: 'label' }, label, link ? ': ' : '', link ? linkTo(link) : '', why),
      );
    img.addEventListener('load', keepAtBottom);
    img.addEventListener('error', () => asLabel(' (cannot be shown)'));
    preview(item).then((url) => (url ? (img.src = url) : asLabel('')));
  } else {
    box.append(
      el(
        'span',
        { class: 'label' },
        `${label}${item.filename ? ': ' + item.filename : ''}`,
        item.link || item.url ? ` (${item.link || item.url})` : '',
      ),
    );
  }
  const text = caption || item.caption;
  if (text) box.append(el('p', { class: 'text' }, text));
  return box;
}

/** agentline's media route: the only path of this origin the page sends the token to for an image. */
const MEDIA_ROUTE = /^\/v1\/channels\/(whatsapp|messanger)\/[^/]+\/media\/[^/]+$/;

/** A web link as a link (opened apart, without the page's referrer); anything else as text. */
function linkTo(link) {
  let url;
  try {
    url = new URL(link, location.href);
  } catch {
    return link;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return link;
  return el('a', { href: url.href, target: '_blank', rel: 'noopener noreferrer' }, link);
}

/**
 * A blob URL of an image: a WhatsApp media id is fetched with the token from agentline's media
 * route, and so is a link to that route; any other link is not loaded (the token goes nowhere
 * else, and the page's Content-Security-Policy allows images from this origin only).
 */
async function preview(item) {
  let path;
  if (item.id && current && current.kind === 'whatsapp') {
    path = `/v1/channels/whatsapp/${encodeURIComponent(current.channelId)}/media/${encodeURIComponent(item.id)}`;
  } else {
    const link = item.link || item.url;
    if (!link) return undefined;
    if (link.startsWith('data:image/')) return link;
    const url = new URL(link, location.href);
    if (url.origin !== location.origin || !MEDIA_ROUTE.test(url.pathname)) return undefined;
    path = url.pathname + url.search;
  }
  if (!mediaUrls.has(path)) {
    mediaUrls.set(
      path,
      api(path)
        .then(async (response) => URL.createObjectURL(await response.blob()))
        .catch(() => undefined),
    );
  }
  return mediaUrls.get(path);
}

function place(spot) {
  return el(
    'div',
    { class: 'location' },
    el('p', {}, '📍 ', spot.name || 'Location'),
    spot.address ? el('p', { class: 'hint' }, spot.address) : null,
    el('p', { class: 'hint' }, `${spot.latitude}, ${spot.longitude}`),
  );
}

function contact(card) {
  const name = (card.name && (card.name.formatted_name || card.name.first_name)) || 'Contact';
  const phones = (card.phones || []).map((p) => p.phone || p.wa_id).join(', ');
  return el('p', { class: 'contact' }, `👤 ${name}${phones ? ' · ' + phones : ''}`);
}

function interactive(message, item) {
  const box = el('div', { class: 'interactive' });
  if (item.type === 'button_reply' || item.type === 'list_reply') {
    const reply = item[item.type] || {};
    box.append(el('p', { class: 'reply' }, '↩ ', reply.title || reply.id || ''));
    return box;
  }
  if (item.header) {
    box.append(
      item.header.type === 'text' || item.header.text
        ? el('p', { class: 'header' }, item.header.text || '')
        : media(item.header.type, item.header[item.header.type] || {}),
    );
  }
  if (item.body) box.append(el('p', { class: 'text' }, item.body.text || ''));
  if (item.footer) box.append(el('p', { class: 'footer' }, item.footer.text || ''));
  const action = item.action || {};
  if (item.type === 'button') {
    box.append(
      buttons(
        (action.buttons || []).map((b) => ({
          text: (b.reply && b.reply.title) || '',
          reply: {
            type: 'interactive',
            interactive: {
              type: 'button_reply',
              button_reply: { id: b.reply && b.reply.id, title: b.reply && b.reply.title },
            },
          },
        })),
        message,
      ),
    );
  } else if (item.type === 'list') {
    box.append(el('p', { class: 'list-button' }, '☰ ', action.button || 'Options'));
    for (const section of action.sections || []) {
      if (section.title) box.append(el('p', { class: 'hint' }, section.title));
      box.append(
        buttons(
          (section.rows || []).map((row) => ({
            text: row.title + (row.description ? ` — ${row.description}` : ''),
            reply: {
              type: 'interactive',
              interactive: {
                type: 'list_reply',
                list_reply: { id: row.id, title: row.title, description: row.description },
              },
            },
          })),
          message,
        ),
      );
    }
  } else if (item.type === 'cta_url') {
    const parameters = action.parameters || {};
    box.append(
      el('p', { class: 'cta' }, '🔗 ', parameters.display_text || '', ` (${parameters.url || ''})`),
    );
  }
  return box;
}

/** Reply buttons: pressed, the client answers with the button's reply (a message of Meta's shape). */
function buttons(list, message) {
  return el(
    'div',
    { class: 'buttons' },
    list.map(({ text, reply }) => {
      const button = el('button', { type: 'button', class: 'reply-button' }, text);
      if (reply && message.direction === 'to_client') {
        button.addEventListener('click', () =>
          sendAsClient({ message: { ...reply, context: { id: message.id } } }),
        );
      } else {
        button.disabled = true;
      }
      return button;
    }),
  );
}

function template(message, rendered) {
  const box = el('div', { class: 'template', 'data-template': rendered.name });
  const header = rendered.header;
  if (header) {
    if (header.format === 'text') box.append(el('p', { class: 'header' }, header.text || ''));
    else if (header.format === 'location') box.append(place(header.location || {}));
    else box.append(media(header.format, header.media || {}));
  }
  if (rendered.found) {
    box.append(el('p', { class: 'text' }, rendered.body || ''));
    if (rendered.footer) box.append(el('p', { class: 'footer' }, rendered.footer));
  } else {
    box.append(
      el(
        'p',
        { class: 'hint' },
        `Template ${rendered.name} (${rendered.language}), not in the catalog; parameters:`,
      ),
      el(
        'ul',
        {},
        rendered.parameters.map((p) => el('li', {}, p)),
      ),
    );
  }
  box.append(
    buttons(
      rendered.buttons.map((b) => ({
        text:
          b.type === 'url'
            ? `🔗 ${b.text} (${b.url})`
            : b.type === 'copy_code'
              ? `⧉ Copy code ${b.code || ''}`
              : b.text,
        reply:
          b.type === 'quick_reply'
            ? { type: 'button', button: { text: b.text, payload: b.text } }
            : undefined,
      })),
      message,
    ),
  );
  return box;
}

/** Messenger: the Send API's body (to the client) or the webhook's messaging entry (from them). */
function messenger(message) {
  const body = message.body;
  const item = body.message || body;
  if (body.postback)
    return el('p', { class: 'reply' }, '↩ ', body.postback.title || body.postback.payload || '');
  const box = el('div', {});
  if (item.text) box.append(el('p', { class: 'text' }, item.text));
  if (item.quick_reply && !item.text)
    box.append(el('p', { class: 'reply' }, '↩ ', item.quick_reply.payload || ''));
  const attachments = item.attachment ? [item.attachment] : item.attachments || [];
  for (const attachment of attachments) {
    const payload = attachment.payload || {};
    if (attachment.type === 'template') box.append(messengerTemplate(message, payload));
    else if (attachment.type === 'location' && payload.coordinates) {
      box.append(place({ latitude: payload.coordinates.lat, longitude: payload.coordinates.long }));
    } else box.append(media(attachment.type === 'file' ? 'document' : attachment.type, payload));
  }
  if (item.quick_replies) {
    box.append(
      buttons(
        item.quick_replies.map((q) => ({
          text: q.title || q.content_type,
          reply: { text: q.title, quick_reply: { payload: q.payload } },
        })),
        message,
      ),
    );
  }
  if (!box.childNodes.length) box.append(el('p', { class: 'hint' }, `[${message.type} message]`));
  return box;
}

function messengerTemplate(message, payload) {
  const box = el('div', { class: 'template' });
  if (payload.text) box.append(el('p', { class: 'text' }, payload.text));
  for (const element of payload.elements || []) {
    box.append(el('p', { class: 'header' }, element.title || ''));
    if (element.subtitle) box.append(el('p', { class: 'hint' }, element.subtitle));
    if (element.image_url) box.append(media('image', { url: element.image_url }));
  }
  const all = (payload.buttons || []).concat(
    ...(payload.elements || []).map((e) => e.buttons || []),
  );
  box.append(
    buttons(
      all.map((b) => ({
        text: b.type === 'web_url' ? `🔗 ${b.title} (${b.url})` : b.title || '',
        reply:
          b.type === 'postback' ? { postback: { title: b.title, payload: b.payload } } : undefined,
      })),
      message,
    ),
  );
  return box;
}

/** One line for the client list. */
function previewOf(message) {
  if (!message) return '';
  const body = message.body;
  const text = (body.text && body.text.body) || (body.message && body.message.text) || body.text;
  const who = message.direction === 'to_client' ? '→ ' : '← ';
  return who + (typeof text === 'string' ? text.slice(0, 60) : `[${message.type}]`);
}

// --- writing as the client ---------------------------------------------------------------------

$('compose').addEventListener('submit', (event) => {
  event.preventDefault();
  const text = $('compose-text').value;
  if (!text.trim()) return;
  sendAsClient({ text }).then((sent) => {
    if (sent) $('compose-text').value = '';
  });
});

/** Posts to the sandbox's inbound endpoint: the message reaches agentline's webhook as Meta's. */
async function sendAsClient(content) {
  if (!current) return false;
  $('compose-error').textContent = '';
  const from = current.kind === 'whatsapp' ? `+${current.client}` : current.client;
  try {
    await api(`/sandbox/${current.kind}/${encodeURIComponent(current.channelId)}/inbound`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ from, ...content }),
    });
    return true;
  } catch (error) {
    showError(error);
    return false;
  }
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) return;
  $('compose-error').textContent = error.message;
}

// --- live updates --------------------------------------------------------------------------

let refreshChannels;
function changed(change) {
  if (isCurrent(change.kind, change.channel_id, change.client)) loadConversation().catch(showError);
  clearTimeout(refreshChannels);
  refreshChannels = setTimeout(() => loadChannels().catch(showError), 300);
}

/** Server-sent events read with fetch (an EventSource cannot send the token); reconnects. */
async function listen() {
  for (;;) {
    if (!token()) return;
    try {
      stream = new AbortController();
      const response = await api('/sandbox/api/events', { signal: stream.signal });
      $('live').textContent = 'live';
      await Promise.all([loadChannels(), loadConversation()]);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((line) => line.startsWith('data: '));
          if (data) changed(JSON.parse(data.slice(6)));
        }
      }
    } catch (error) {
      if ((error instanceof ApiError && error.status === 401) || error.name === 'AbortError')
        return;
    }
    $('live').textContent = 'offline';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function start() {
  if (!token()) return askForToken('');
  $('token-form').hidden = true;
  $('app').hidden = false;
  $('forget-token').hidden = false;
  listen();
}

start();
