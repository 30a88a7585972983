// Shapes the API reference for readers of the site:
// - each module is named after its import specifier (`@s2sp/server/http`) instead of its source
//   path (`server/src/http/index`), and the maintainers' note in each entry file's header ("adding
//   an export here is an API change") is left out;
// - the functions START_HERE names open their entry point's page, in that order, under "Start here";
// - a member declared in node_modules (`Error`'s `message`, `[Symbol.asyncDispose]`) keeps its
//   page but loses its "Defined in" link, which would point at a file the repository does not hold;
// - each entry point's page is at its import specifier (`api/@s2sp/server.md`, where the guides
//   link), its classes' and interfaces' pages beside it (`api/@s2sp/server/interfaces/S2SP.md`):
//   the router `s2sp-members` (typedoc.config.mjs), typedoc-plugin-markdown's page-per-member
//   router with the entry point's page moved out of its folder (`@s2sp/server/index.md`);
// - a row linking to a class's or interface's own page keeps the anchor the symbol had on its
//   entry point's page (keepAnchors);
// - every page says `editLink: false`: it is generated, so "Edit this page" would open a file that
//   does not exist (the guides keep the link).
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';
import { MarkdownPageEvent, MemberRouter } from 'typedoc-plugin-markdown';
import { publicEntryPoints, READING_ORDER, START_HERE } from './typedoc.config.mjs';

const MAINTAINER_NOTE =
  /This file is (?:the|part of the) package's public API: adding an export here is an API change\.\s*/;
/** The group the START_HERE exports are put in; typedoc.config.mjs's `groupOrder` puts it first. */
export const START_HERE_GROUP = 'Start here';
/** Prepended to every generated page; VitePress reads it as the page's frontmatter. */
export const GENERATED_FRONTMATTER = '---\neditLink: false\n---\n\n';

/**
 * A page per module and per `membersWithOwnFile` kind, with each module's page at its name rather
 * than at `<name>/index`.
 */
class SiteRouter extends MemberRouter {
  /** @param {import('typedoc').Reflection} reflection */
  getIdealBaseName(reflection) {
    if (reflection.kind === ReflectionKind.Module) return this.getReflectionAlias(reflection);
    return super.getIdealBaseName(reflection);
  }

  /** @param {import('typedoc').Reflection} reflection */
  getReflectionDirectory(reflection) {
    const parent = reflection.parent;
    if (parent?.kind === ReflectionKind.Module) {
      return `${this.getReflectionAlias(parent)}/${this.directories.get(reflection.kind)}`;
    }
    return super.getReflectionDirectory(reflection);
  }
}

/**
 * Gives each row of an entry point's page that links to a class's or an interface's own page the
 * anchor the symbol had when it was documented on that page (`#s2spoptions`), so links written
 * then (`/api/@s2sp/server#s2spoptions`, in the guides) still land on it.
 *
 * @param {string} contents the page's Markdown
 */
export function keepAnchors(contents) {
  return contents.replace(
    /^\| \[([A-Za-z_$][\w$]*)\]\(([^)\s]*\/(?:classes|interfaces)\/[^)\s]*)\) \|/gm,
    (_, name, href) => `| <a id="${name.toLowerCase()}"></a>[${name}](${href}) |`,
  );
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.renderer.defineRouter('s2sp-members', SiteRouter);
  const bySource = new Map(publicEntryPoints().map((entry) => [entry.file, entry.specifier]));
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
      const file = module.sources?.[0]?.fullFileName;
      const specifier = file && bySource.get(file);
      if (specifier) module.name = specifier;
      for (const part of module.comment?.summary ?? []) {
        if (part.kind === 'text') part.text = part.text.replace(MAINTAINER_NOTE, '');
      }
      for (const name of START_HERE[module.name] ?? []) {
        const child = module.getChildByName(name);
        if (!child?.kindOf(ReflectionKind.Function))
          throw new Error(`START_HERE names ${name}, which is no function ${module.name} exports`);
        // A function's TSDoc is on its signature, where TypeDoc's groups read tags too.
        const holder = child.signatures?.[0] ?? child;
        holder.comment ??= new Comment();
        holder.comment.blockTags.push(
          new CommentTag('@group', [{ kind: 'text', text: START_HERE_GROUP }]),
        );
      }
    }
  });
  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    for (const reflection of Object.values(context.project.reflections)) {
      if (!('sources' in reflection) || !reflection.sources) continue;
      const own = reflection.sources.filter(
        (source) => !source.fullFileName.replaceAll('\\', '/').includes('/node_modules/'),
      );
      reflection.sources = own.length > 0 ? own : undefined;
    }
  });
  // After TypeDoc's GroupPlugin (-100) has grouped and sorted: the packages in READING_ORDER
  // (each one's entry points in the order of its package.json), "Start here" in START_HERE's.
  app.converter.on(
    Converter.EVENT_RESOLVE_END,
    (context) => {
      const rank = (module) => READING_ORDER.indexOf(module.name.split('/')[1] ?? '');
      for (const group of context.project.groups ?? []) {
        group.children.sort((a, b) => rank(a) - rank(b));
      }
      context.project.children?.sort((a, b) => rank(a) - rank(b));
      for (const module of context.project.getReflectionsByKind(ReflectionKind.Module)) {
        const order = START_HERE[module.name];
        const group = module.groups?.find((candidate) => candidate.title === START_HERE_GROUP);
        if (order && group) {
          group.children.sort((a, b) => order.indexOf(a.name) - order.indexOf(b.name));
        }
      }
    },
    -200,
  );
  app.renderer.on(MarkdownPageEvent.END, (page) => {
    if (page.contents === undefined) return;
    if (page.model.kindOf?.(ReflectionKind.Module)) page.contents = keepAnchors(page.contents);
    page.contents = GENERATED_FRONTMATTER + page.contents;
  });
}
