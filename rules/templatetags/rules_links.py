from django import template

from rules.selectors import section_path

register = template.Library()


@register.simple_tag
def section_url(section, document):
    """The public URL of ``section`` of ``document`` (by number when it can be)."""
    return section_path(section, document)
