import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';

/** Who is calling: the organization every query is scoped by, and the JWT subject (`created_by`). */
export interface Principal {
  organizationId: string;
  subject: string;
  /** The token's `exp`, in ms, when it has one: what holds a connection open ends there. */
  expiresAtMs?: number;
}

export const IS_PUBLIC = 'agentline:public';

/**
 * Marks a route that a third party calls without our JWT (OAuth2 callback, Meta webhooks, docs).
 * Each use must say who authenticates the request instead.
 */
export const Public = () => SetMetadata(IS_PUBLIC, true);

export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ user: Principal }>().user,
);
