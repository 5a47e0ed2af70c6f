import { Injectable } from '@nestjs/common';
import { ToolExecutor } from './tool-executor';

/**
 * The in-process executors by qualified tool name (`Toolkit.Tool`, case-insensitive). ToolsModule
 * registers the built-in toolkits; other modules register theirs on init, so that Tools never has
 * to import them.
 */
@Injectable()
export class ToolExecutorRegistry {
  private readonly executors = new Map<string, ToolExecutor>();

  register(qualifiedName: string, executor: ToolExecutor): void {
    const key = qualifiedName.toLowerCase();
    // Two executors for one tool would make which one runs depend on module init order.
    if (this.executors.has(key)) {
      throw new Error(`An executor for ${qualifiedName} is already registered`);
    }
    this.executors.set(key, executor);
  }

  find(qualifiedName: string): ToolExecutor | undefined {
    return this.executors.get(qualifiedName.toLowerCase());
  }
}
