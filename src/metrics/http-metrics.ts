import type { NextFunction, Request, Response } from 'express';
import { Metrics } from './metrics';

/**
 * Times every request and counts it under its route template (`/v1/tools/:id`, not the id:
 * one series per route, however many ids), method and status. Requests that matched no route
 * count as `unmatched`.
 */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const end = metrics.httpRequests.startTimer();
    res.once('finish', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      end({
        method: req.method,
        route: route === undefined ? 'unmatched' : `${req.baseUrl}${route}`,
        status: res.statusCode,
      });
    });
    next();
  };
}
