// The Jacobian view mounted on its own (the Explorer's inspector): the entry module of components/jacobian_view.

import { JacobianView } from "./jacobian.js";

export default function (component) {
  const { data, parentElement } = component;
  let view = parentElement.__jacobianView;
  if (!view || !view.root.isConnected) {
    view = new JacobianView(parentElement);
    parentElement.__jacobianView = view;
  }
  view.show(typeof data === "string" ? JSON.parse(data) : data);
  return undefined;
}
