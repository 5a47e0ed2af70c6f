import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { ProblemException } from '../../common/http/problem';
import { toFieldErrors } from '../../common/http/validation';
import { ToolExecutionError } from './tool-executor';

/**
 * What the HTTP API would answer as 400/404/409/422 is, for a tool, an error the model should
 * read: the problem's detail and each field's message. Anything else stays an exception (500).
 */
export async function asToolError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Refusals, and a busy scheduler thread, are the model's to read; an outage or a bug is not.
    if (error instanceof ProblemException && (error.status < 500 || error.code === 'busy')) {
      throw new ToolExecutionError(describeProblem(error.detail, error.errors ?? []));
    }
    throw error;
  }
}

function describeProblem(detail: string, errors: readonly { field: string; message: string }[]) {
  if (errors.length === 0) return detail;
  return `${detail} ${errors.map((error) => `${error.field}: ${error.message}`).join('; ')}`;
}

/**
 * Validates a body with the same DTO class and rules as the HTTP API, so that a tool accepts
 * exactly what the matching operation accepts (lengths, ranges, unknown fields).
 */
export async function validDto<T extends object>(
  type: new () => T,
  body: Record<string, unknown>,
): Promise<T> {
  const dto = plainToInstance(type, body);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) {
    throw new ToolExecutionError(describeProblem('The input is not valid.', toFieldErrors(errors)));
  }
  return dto;
}
