// Shapes the API reference's modules for readers of the site: each is named after its import
// specifier (`@s2sp/server/http`) instead of its source path (`server/src/http/index`), and the
// maintainers' note in each entry file's header ("adding an export here is an API change") is
// left out.
import { Converter, ReflectionKind } from 'typedoc';
import { publicEntryPoints } from './typedoc.config.mjs';

const MAINTAINER_NOTE =
  /This file is (?:the|part of the) package's public API: adding an export here is an API change\.\s*/;

/** @param {import('typedoc').Application} app */
export function load(app) {
  const bySource = new Map(publicEntryPoints().map((entry) => [entry.file, entry.specifier]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const file = module.sources?.[0]?.fullFileName;
      const specifier = file && bySource.get(file);
      if (specifier) module.name = specifier;
      for (const part of module.comment?.summary ?? []) {
        if (part.kind === 'text') part.text = part.text.replace(MAINTAINER_NOTE, '');
      }
    }
  });
}
