import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { loadToolCatalog, ToolCatalog } from './catalog/tool-catalog';
import { ToolEntity } from './entities/tool.entity';
import { ToolsController } from './tools.controller';
import { ToolsService } from './tools.service';

@Module({
  imports: [TypeOrmModule.forFeature([ToolEntity])],
  controllers: [ToolsController],
  // Loaded and validated at boot: a bad toolkit file stops the service with the file and field named.
  providers: [ToolsService, { provide: ToolCatalog, useFactory: () => loadToolCatalog() }],
})
export class ToolsModule {}
