import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { passportJwtSecret } from 'jwks-rsa';
import {
  ExtractJwt,
  SecretOrKeyProvider,
  Strategy,
  StrategyOptionsWithoutRequest,
} from 'passport-jwt';
import { AppConfig } from '../../config/app-config';
import { APP_CONFIG } from '../../config/config.module';
import { ProblemException } from '../http/problem';
import { Principal } from './principal';

type Claims = Record<string, unknown>;

type KeyOptions = { secretOrKey: string } | { secretOrKeyProvider: SecretOrKeyProvider };

function keyOptions(config: AppConfig): KeyOptions {
  const { jwt } = config;
  switch (jwt.kind) {
    case 'secret':
      return { secretOrKey: jwt.secret };
    case 'public-key':
      return { secretOrKey: jwt.publicKey };
    case 'jwks':
      return {
        secretOrKeyProvider: passportJwtSecret({
          jwksUri: jwt.jwksUrl,
          cache: true,
          cacheMaxAge: 10 * 60 * 1000,
          rateLimit: true,
          jwksRequestsPerMinute: 10,
          timeout: 5000,
        }),
      };
  }
}

/** Verifies the bearer JWT exactly as CONTRACT.md says and turns its claims into a Principal. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly organizationClaim: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      ...keyOptions(config),
      algorithms: [...config.jwt.algorithms],
      issuer: config.jwt.issuer,
      audience: config.jwt.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: config.jwt.clockSkewSeconds },
    } as StrategyOptionsWithoutRequest);
    this.organizationClaim = config.jwt.organizationClaim;
  }

  validate(claims: Claims): Principal {
    const subject = claims.sub;
    const organizationId = claims[this.organizationClaim];
    if (typeof subject !== 'string' || subject.length === 0) {
      throw new ProblemException(401, 'unauthorized', 'The token has no `sub` claim.');
    }
    if (typeof organizationId !== 'string' || organizationId.length === 0) {
      throw new ProblemException(
        401,
        'unauthorized',
        `The token has no \`${this.organizationClaim}\` claim.`,
      );
    }
    return { organizationId, subject };
  }
}
