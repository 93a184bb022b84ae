// Whether the page shows the presenter layout: the presenter's class on the body (teacher.js,
// from the link's big=1) on a screen wide enough for it. The stylesheet's presenter rules apply
// from 901 CSS px on; a student's phone opening the lecturer's link keeps its narrow layout,
// and the scripts read it as the narrow layout too (the step scrolled into view, the charts'
// type at the phone's size, the worksheet's button shown).
export const PRESENTER_MEDIA = '(min-width: 901px)';

export const presenting = () =>
  document.body.classList.contains('presenter') && window.matchMedia(PRESENTER_MEDIA).matches;
