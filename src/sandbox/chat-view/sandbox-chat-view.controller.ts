import { Controller, Get, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentPrincipal, Principal, Public } from '../../common/auth/principal';
import { ProblemException } from '../../common/http/problem';
import { SANDBOX_OFF } from '../sandbox-inbound.service';
import { SANDBOX_CHAT_PAGE, SandboxChatPage } from './sandbox-chat-page';
import { SandboxChatEvents } from './sandbox-chat-events';
import { ChatChannel, ChatMessage, SandboxChatView } from './sandbox-chat-view.service';

/**
 * Nothing but this origin's own script and style; images from here, from blob URLs (media fetched
 * with the token) and data URLs; no frames, forms or plugins. Message text is the client's (or
 * the agent's) and is only ever set as text by the page, never as HTML.
 */
export const SANDBOX_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The chat view of the Meta sandbox (docs/sandbox.md): `GET /sandbox`, a static page that holds no
 * data (public), and the JSON it reads behind the JWT, scoped to the token's organization. Off,
 * like the whole sandbox, unless META_SANDBOX is true: then every route here is 404.
 */
@ApiExcludeController()
@Controller('sandbox')
export class SandboxChatViewController {
  constructor(
    private readonly view: SandboxChatView,
    private readonly events: SandboxChatEvents,
    @Inject(SANDBOX_CHAT_PAGE) private readonly page: SandboxChatPage,
  ) {}

  /** Public: the page is the same for everyone; it asks for a token and sends it to the API. */
  @Public()
  @Get()
  html(@Res() response: Response): void {
    this.asset(response, 'html');
  }

  @Public()
  @Get('assets/chat.js')
  script(@Res() response: Response): void {
    this.asset(response, 'js');
  }

  @Public()
  @Get('assets/chat.css')
  style(@Res() response: Response): void {
    this.asset(response, 'css');
  }

  @Get('api/channels')
  channels(@CurrentPrincipal() principal: Principal): Promise<ChatChannel[]> {
    this.requireSandbox();
    return this.view.listChannels(principal);
  }

  @Get('api/conversations/:kind/:channel_id/:client')
  conversation(
    @CurrentPrincipal() principal: Principal,
    @Param('kind') kind: string,
    @Param('channel_id') channelId: string,
    @Param('client') client: string,
  ): Promise<ChatMessage[]> {
    this.requireSandbox();
    return this.view.conversation(principal, kind, channelId, client);
  }

  @Get('api/events')
  stream(@CurrentPrincipal() principal: Principal, @Res() response: Response): void {
    this.requireSandbox();
    this.events.stream(principal, response);
  }

  private asset(response: Response, asset: keyof SandboxChatPage['assets']): void {
    this.requireSandbox();
    const { type, text } = this.page.assets[asset];
    response
      .status(200)
      .set({
        'Content-Type': type,
        'Content-Security-Policy': SANDBOX_PAGE_CSP,
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-cache',
      })
      .send(text);
  }

  private requireSandbox(): void {
    if (!this.page.enabled) {
      throw new ProblemException('not_found', SANDBOX_OFF);
    }
  }
}
