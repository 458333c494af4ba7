import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import {
  EngagementSummary,
  OpenWebMentions,
  StaticComments,
} from "../../app/features/comments/comment-view.ts";

/*
 * An item's engagement drawn as HTML by the components the islands use
 * (server/web/engagement-pages.ts). A module of its own so that React and
 * its server renderer are imported with the first page that is filled in,
 * not with every start.
 */

type Props<C> = C extends (props: infer P) => unknown ? P : never;

export const summary = (props: Props<typeof EngagementSummary>) =>
  renderToStaticMarkup(createElement(EngagementSummary, props));

export const comments = (props: Props<typeof StaticComments>) =>
  renderToStaticMarkup(createElement(StaticComments, props));

export const mentions = (props: Props<typeof OpenWebMentions>) =>
  renderToStaticMarkup(createElement(OpenWebMentions, props));
