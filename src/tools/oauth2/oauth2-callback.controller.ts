import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../../common/auth/principal';
import { TOOLS_CONFIG, ToolsConfig } from '../tools.config';
import { OAuth2AuthorizationService } from './oauth2-authorization.service';
import { callbackResponse } from './oauth2-callback.page';

/** One value of a query parameter; a repeated parameter is not one we sent. */
const single = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : undefined;

/**
 * Where providers send the user's browser back. Not in the OpenAPI document: no API client calls
 * it, and it takes no bearer token.
 */
@ApiExcludeController()
@Controller('v1/oauth2')
export class OAuth2CallbackController {
  constructor(
    private readonly authorization: OAuth2AuthorizationService,
    @Inject(TOOLS_CONFIG) private readonly config: ToolsConfig,
  ) {}

  // Public: the browser arrives from the provider without our JWT. The signed, expiring,
  // single-use `state` authenticates the request and names the authorization it completes.
  @Public()
  @Get('callback')
  async callback(
    @Query('state') state: unknown,
    @Query('code') code: unknown,
    @Query('error') error: unknown,
    @Res() res: Response,
  ): Promise<void> {
    const outcome = await this.authorization.complete({
      state: single(state),
      code: single(code),
      error: single(error),
    });
    const response = callbackResponse(outcome, this.config.oauth2);
    // The URL carried a code: keep it out of caches and out of any Referer.
    res.set({ 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' });
    if (response.kind === 'redirect') {
      res.redirect(302, response.location);
      return;
    }
    res
      .status(response.status)
      .set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
      .type('html')
      .send(response.html);
  }
}
