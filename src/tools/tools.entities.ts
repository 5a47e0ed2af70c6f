import { OAuth2GrantEntity } from './entities/oauth2-grant.entity';
import { OAuth2StateEntity } from './entities/oauth2-state.entity';
import { ToolEntity } from './entities/tool.entity';
import { ToolExecutionEntity } from './execution/tool-execution.entity';

/** The tables Tools own; registered once, by ToolsModule (autoLoadEntities). */
export const TOOLS_ENTITIES = [
  ToolEntity,
  ToolExecutionEntity,
  OAuth2GrantEntity,
  OAuth2StateEntity,
];
